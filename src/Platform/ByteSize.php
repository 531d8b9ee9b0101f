<?php

declare(strict_types=1);

namespace Bobbin\Platform;

/** A byte count as operators write it: "134217728", "128M", "512k", "1G" (powers of 1024). */
final class ByteSize
{
    private const UNITS = ['' => 1, 'K' => 1024, 'M' => 1048576, 'G' => 1073741824];

    /** @throws \InvalidArgumentException when $value is no byte count */
    public static function parse(string $value): int
    {
        if (\preg_match('/^\s*(\d{1,15})\s*([kKmMgG]?)[bB]?\s*$/', $value, $m) !== 1) {
            throw new \InvalidArgumentException(\sprintf('"%s" is not a byte count (e.g. 134217728, 512K, 128M, 1G)', $value));
        }

        return (int) $m[1] * self::UNITS[\strtoupper($m[2])];
    }

    public static function format(int $bytes): string
    {
        if ($bytes >= 1073741824) {
            return \sprintf('%.1fG', $bytes / 1073741824);
        }
        if ($bytes >= 1048576) {
            return \sprintf('%.1fM', $bytes / 1048576);
        }
        if ($bytes >= 1024) {
            return \sprintf('%.1fK', $bytes / 1024);
        }

        return $bytes . 'B';
    }
}
