<?php

declare(strict_types=1);

namespace Bobbin\MessagePack\Extension;

use Bobbin\MessagePack\Decoder;
use Bobbin\MessagePack\Encoder;
use Bobbin\MessagePack\Extension;
use Bobbin\MessagePack\MessagePackException;

/**
 * Tarantool's datetime (ext type 4, Tarantool 2.10+): seconds since the epoch (UTC) as a
 * little-endian int64, then, unless all are zero, nanoseconds (int32), the offset from UTC
 * in minutes (int16) and a time zone index (int16). Decoded as a DateTimeImmutable at that
 * offset, to the microsecond (PHP keeps no finer); a named zone (the index) is read as its offset.
 */
final class DatetimeExtension implements Extension
{
    public const TYPE = 4;

    public function type(): int
    {
        return self::TYPE;
    }

    public function className(): string
    {
        return \DateTimeInterface::class;
    }

    public function encode(object $value, Encoder $encoder): string
    {
        \assert($value instanceof \DateTimeInterface);
        $seconds = $value->getTimestamp();
        $nanoseconds = (int) $value->format('u') * 1000;
        $offset = \intdiv($value->getOffset(), 60);
        $bytes = \pack('P', $seconds);
        if ($nanoseconds === 0 && $offset === 0) {
            return $bytes;
        }

        return $bytes . \pack('Vvv', $nanoseconds, $offset & 0xFFFF, 0);
    }

    public function decode(string $data, Decoder $decoder): \DateTimeImmutable
    {
        $length = \strlen($data);
        if ($length !== 8 && $length !== 16) {
            throw new MessagePackException(\sprintf('A datetime is 8 or 16 bytes, not %d', $length));
        }
        /** @var array{1: int} $head */
        $head = \unpack('P', $data);
        $seconds = $head[1];
        $nanoseconds = 0;
        $offset = 0;
        if ($length === 16) {
            /** @var array{n: int, o: int} $tail */
            $tail = \unpack('Vn/vo', $data, 8);
            $nanoseconds = $tail['n'];
            $offset = $tail['o'] >= 0x8000 ? $tail['o'] - 0x10000 : $tail['o'];
            if ($nanoseconds >= 1_000_000_000) {
                throw new MessagePackException(\sprintf('A datetime with %d nanoseconds', $nanoseconds));
            }
        }
        $zone = new \DateTimeZone(\sprintf('%s%02d:%02d', $offset < 0 ? '-' : '+', \intdiv(\abs($offset), 60), \abs($offset) % 60));
        $utc = (new \DateTimeImmutable('@' . $seconds))->setTimezone($zone);

        return $utc->setTime((int) $utc->format('G'), (int) $utc->format('i'), (int) $utc->format('s'), \intdiv($nanoseconds, 1000));
    }
}
