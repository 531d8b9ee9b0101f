<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Internal;

use Bobbin\MessagePack\Encoder;

/**
 * The bodies and frames of every request, as bytes. Pure: no socket, no state.
 *
 * A frame is the length as uint 32 (0xce + 4 bytes, so it can be written before the body is
 * known to be short), the header map {REQUEST_TYPE, SYNC[, SCHEMA_VERSION][, STREAM_ID]} and
 * the body map.
 *
 * @internal
 */
final class RequestEncoder
{
    public function __construct(public readonly Encoder $encoder)
    {
    }

    // Instance methods and $this->encoder->encode() for ints, not Encoder::int(): under PHP
    // 8.2's JIT a static call costs ~50-100 instructions more, as much as the encoding.
    public function frame(int $type, int $sync, string $body, int $schemaVersion = 0, int $streamId = 0): string
    {
        $entries = 2;
        // Every request type is a positive fixint (under 0x80): its byte is itself.
        $header = "\x00" . ($type < 0x80 ? \chr($type) : $this->encoder->encode($type)) . "\x01" . $this->encoder->encode($sync);
        if ($schemaVersion !== 0) {
            $entries++;
            $header .= "\x05" . $this->encoder->encode($schemaVersion);
        }
        if ($streamId !== 0) {
            $entries++;
            $header .= "\x0a" . $this->encoder->encode($streamId);
        }
        $header = \chr(0x80 | $entries) . $header;

        $length = \strlen($header) + \strlen($body);
        // chr() for a length under 64 KB: pack() parses its format on every call.
        $prefix = $length < 0x10000 ? "\xCE\x00\x00" . \chr($length >> 8) . \chr($length & 0xFF) : \pack('CN', 0xCE, $length);

        return $prefix . $header . $body;
    }

    /** @param list<mixed> $key */
    public function select(int $spaceId, int $indexId, array $key, int $limit, int $offset, int $iterator): string
    {
        return "\x86"
            . "\x10" . $this->encoder->encode($spaceId)
            . "\x11" . $this->encoder->encode($indexId)
            . "\x12" . $this->encoder->encode($limit)
            . "\x13" . $this->encoder->encode($offset)
            . "\x14" . $this->encoder->encode($iterator)
            . "\x20" . $this->encoder->list($key);
    }

    /** @param list<mixed> $tuple an insert's or a replace's */
    public function tuple(int $spaceId, array $tuple): string
    {
        return "\x82\x10" . $this->encoder->encode($spaceId) . "\x21" . $this->encoder->list($tuple);
    }

    /**
     * @param list<mixed> $key
     * @param list<list<mixed>> $operations
     */
    public function update(int $spaceId, int $indexId, array $key, array $operations): string
    {
        return "\x84\x10" . $this->encoder->encode($spaceId)
            . "\x11" . $this->encoder->encode($indexId)
            . "\x20" . $this->encoder->list($key)
            . "\x21" . $this->encoder->list($operations);
    }

    /**
     * @param list<mixed> $tuple
     * @param list<list<mixed>> $operations
     */
    public function upsert(int $spaceId, array $tuple, array $operations): string
    {
        return "\x83\x10" . $this->encoder->encode($spaceId)
            . "\x21" . $this->encoder->list($tuple)
            . "\x28" . $this->encoder->list($operations);
    }

    /** @param list<mixed> $key */
    public function delete(int $spaceId, int $indexId, array $key): string
    {
        return "\x83\x10" . $this->encoder->encode($spaceId) . "\x11" . $this->encoder->encode($indexId) . "\x20" . $this->encoder->list($key);
    }

    /** @param list<mixed> $arguments */
    public function call(string $function, array $arguments): string
    {
        return "\x82\x22" . $this->encoder->encode($function) . "\x21" . $this->encoder->list($arguments);
    }

    /** @param list<mixed> $arguments */
    public function evaluate(string $expression, array $arguments): string
    {
        return "\x82\x27" . $this->encoder->encode($expression) . "\x21" . $this->encoder->list($arguments);
    }

    /** @param list<mixed> $bindings */
    public function execute(string|int $statement, array $bindings): string
    {
        return "\x82" . (\is_int($statement) ? "\x43" . $this->encoder->encode($statement) : "\x40" . $this->encoder->encode($statement))
            . "\x41" . $this->encoder->list($bindings);
    }

    public function prepare(string $sql): string
    {
        return "\x81\x40" . Encoder::str($sql);
    }

    public function unprepare(int $statementId): string
    {
        return "\x81\x43" . $this->encoder->encode($statementId);
    }

    public function auth(string $user, string $scramble): string
    {
        return "\x82\x23" . Encoder::str($user) . "\x21\x92" . Encoder::str('chap-sha1') . Encoder::str($scramble);
    }

    /** IPROTO_BEGIN (Tarantool 2.10+), with the server's bound on the transaction when given. */
    public function begin(?float $timeout): string
    {
        return $timeout === null ? "\x80" : "\x81\x56\xcb" . \pack('E', $timeout);
    }
}
