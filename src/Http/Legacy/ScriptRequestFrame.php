<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

/**
 * A request as the worker hands it to a child of the legacy pool (native/legacy-pool). Pure.
 * Big-endian: the size of the variables block (4 bytes); the block: their number (4 bytes),
 * then each name and value with its 4-byte length; then the body's length (8 bytes), and the
 * body after it (sent as it is, not copied into the frame).
 *
 * The variables are the request's $_SERVER as PHP-FPM gives it; PHP, in the child, makes
 * $_GET, $_POST, $_COOKIE, $_FILES and php://input from QUERY_STRING, HTTP_COOKIE and the body
 * itself, and REQUEST_TIME from REQUEST_TIME_FLOAT. Values that are not scalars (argv of a
 * CLI) are left out: a web SAPI has none.
 *
 * @internal from PooledScripts to native/legacy-pool/bobbin-legacy-pool.c
 */
final class ScriptRequestFrame
{
    private function __construct()
    {
    }

    /** @param array<array-key, mixed> $server */
    public static function head(array $server, int $bodyLength): string
    {
        $count = 0;
        $block = '';
        foreach ($server as $name => $value) {
            if (!\is_scalar($value)) {
                continue;
            }
            $name = (string) $name;
            $value = \is_bool($value) ? ($value ? '1' : '') : (string) $value;
            $block .= \pack('N', \strlen($name)) . $name . \pack('N', \strlen($value)) . $value;
            $count++;
        }

        return \pack('NN', 4 + \strlen($block), $count) . $block . \pack('J', $bodyLength);
    }
}
