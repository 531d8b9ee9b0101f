<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Ipc;

/** The example service's answer computed in PHP: what the daemon must send back. */
final class ByteFrequency
{
    public static function expected(string $request): string
    {
        $length = \max(1, \intdiv(\strlen($request), 8));
        $out = \array_fill(0, $length, 0);
        foreach (\count_chars($request, 1) as $byte => $count) {
            if ($length >= 256) {
                $out[$byte] = $count & 0xFF;
            } else {
                $out[$byte % $length] = ($out[$byte % $length] + $count) & 0xFF;
            }
        }

        return \pack('C*', ...$out);
    }
}
