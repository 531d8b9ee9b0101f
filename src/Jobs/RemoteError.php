<?php

declare(strict_types=1);

namespace Bobbin\Jobs;

/**
 * An exception thrown in a job worker, as the caller receives it: the original class, message,
 * code, place and trace (as text: the frames' arguments stay in the worker), and its previous
 * exceptions, outermost first.
 */
final readonly class RemoteError
{
    private const MAX_PREVIOUS = 8;

    public function __construct(
        public string $class,
        public string $message,
        public int|string $code,
        public string $file,
        public int $line,
        public string $trace,
        public ?RemoteError $previous = null,
    ) {
    }

    public static function fromThrowable(\Throwable $error): self
    {
        return self::describe($error, 0);
    }

    /** @return array<string, mixed> */
    public function toArray(): array
    {
        return [
            'class' => $this->class,
            'message' => $this->message,
            'code' => $this->code,
            'file' => $this->file,
            'line' => $this->line,
            'trace' => $this->trace,
            'previous' => $this->previous?->toArray(),
        ];
    }

    /** @param array<mixed> $data */
    public static function fromArray(array $data, int $depth = 0): self
    {
        $previous = $data['previous'] ?? null;
        $code = $data['code'] ?? 0;

        return new self(
            self::text($data['class'] ?? null, 'Throwable'),
            self::text($data['message'] ?? null, ''),
            \is_int($code) || \is_string($code) ? $code : 0,
            self::text($data['file'] ?? null, ''),
            \is_int($data['line'] ?? null) ? $data['line'] : 0,
            self::text($data['trace'] ?? null, ''),
            \is_array($previous) && $depth < self::MAX_PREVIOUS ? self::fromArray($previous, $depth + 1) : null,
        );
    }

    private static function describe(\Throwable $error, int $depth): self
    {
        $previous = $error->getPrevious();

        return new self(
            $error::class,
            $error->getMessage(),
            $error->getCode(),
            $error->getFile(),
            $error->getLine(),
            $error->getTraceAsString(),
            $previous !== null && $depth < self::MAX_PREVIOUS ? self::describe($previous, $depth + 1) : null,
        );
    }

    private static function text(mixed $value, string $default): string
    {
        return \is_string($value) ? $value : $default;
    }
}
