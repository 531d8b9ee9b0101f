<?php

declare(strict_types=1);

namespace Bobbin\Async;

/** Every one of several awaited futures failed. */
final class CompositeException extends \RuntimeException
{
    /** @param array<array-key, \Throwable> $errors */
    public function __construct(private readonly array $errors)
    {
        $messages = \array_map(static fn (\Throwable $e): string => $e::class . ': ' . $e->getMessage(), $errors);
        parent::__construct('All futures failed: ' . \implode('; ', $messages), 0, \reset($errors) ?: null);
    }

    /** @return array<array-key, \Throwable> */
    public function errors(): array
    {
        return $this->errors;
    }
}
