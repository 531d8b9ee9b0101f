<?php

declare(strict_types=1);

namespace Bobbin\Http;

/**
 * The Date header line, formatted at most once a second however many responses go out.
 *
 * @internal the Date header of the server's responses
 */
final class HttpDate
{
    private static int $second = 0;
    private static string $line = '';

    public static function headerLine(): string
    {
        $now = \time();
        if ($now !== HttpDate::$second) {
            HttpDate::$second = $now;
            HttpDate::$line = 'Date: ' . \gmdate('D, d M Y H:i:s', $now) . " GMT\r\n";
        }

        return HttpDate::$line;
    }
}
