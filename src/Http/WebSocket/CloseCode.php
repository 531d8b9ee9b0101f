<?php

declare(strict_types=1);

namespace Bobbin\Http\WebSocket;

/** Close frames' payloads (§5.5.1, §7.4): a status code and a UTF-8 reason, or nothing. */
final class CloseCode
{
    public const NORMAL = 1000;
    public const GOING_AWAY = 1001;
    public const PROTOCOL_ERROR = 1002;
    public const INVALID_DATA = 1007;
    public const TOO_BIG = 1009;
    public const INTERNAL_ERROR = 1011;

    private function __construct()
    {
    }

    /**
     * The code a client's close frame carries (1005, "none", when it carries nothing).
     *
     * @throws ProtocolViolation for a payload of one byte, a code no endpoint may send, a reason not in UTF-8
     */
    public static function parse(string $payload): int
    {
        if ($payload === '') {
            return 1005;
        }
        if (\strlen($payload) === 1) {
            throw new ProtocolViolation(1002, 'a close frame with a one-byte payload');
        }
        $code = (\ord($payload[0]) << 8) | \ord($payload[1]);
        if (!self::maySend($code)) {
            throw new ProtocolViolation(1002, \sprintf('close code %d may not be sent', $code));
        }
        if (\preg_match('//u', \substr($payload, 2)) !== 1) {
            throw new ProtocolViolation(1007, 'a close reason that is not valid UTF-8');
        }

        return $code;
    }

    /** Whether an endpoint may put $code in a close frame: the defined ones (1004-1006 and 1015 are reserved) and 3000-4999. */
    public static function maySend(int $code): bool
    {
        return ($code >= 1000 && $code <= 1014 && $code !== 1004 && $code !== 1005 && $code !== 1006) || ($code >= 3000 && $code <= 4999);
    }

    public static function payload(int $code, string $reason = ''): string
    {
        return \pack('n', $code) . \substr($reason, 0, 123);
    }
}
