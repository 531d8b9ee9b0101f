<?php

declare(strict_types=1);

namespace Bobbin\Bench\Load;

/** The `RESULT {json}` line that bench/wrk/*.lua print at the end of a wrk run. */
final class WrkResult
{
    /** @param array<string, int|float> $fields */
    private function __construct(private readonly array $fields)
    {
    }

    public static function parse(string $output): self
    {
        if (!\preg_match('~^RESULT (\{.*\})\s*$~m', $output, $m)) {
            throw new \RuntimeException("wrk printed no RESULT line:\n" . $output);
        }
        /** @var array<string, int|float> $fields */
        $fields = \json_decode($m[1], true, 4, \JSON_THROW_ON_ERROR);

        return new self($fields);
    }

    public function get(string $field): float
    {
        return (float) ($this->fields[$field] ?? 0);
    }
}
