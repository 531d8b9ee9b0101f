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

    public static function frame(int $type, int $sync, string $body, int $schemaVersion = 0, int $streamId = 0): string
    {
        $entries = 2;
        $header = "\x00" . Encoder::int($type) . "\x01" . Encoder::int($sync);
        if ($schemaVersion !== 0) {
            $entries++;
            $header .= "\x05" . Encoder::int($schemaVersion);
        }
        if ($streamId !== 0) {
            $entries++;
            $header .= "\x0a" . Encoder::int($streamId);
        }
        $header = \chr(0x80 | $entries) . $header;

        return "\xce" . \pack('N', \strlen($header) + \strlen($body)) . $header . $body;
    }

    /** @param list<mixed> $key */
    public function select(int $spaceId, int $indexId, array $key, int $limit, int $offset, int $iterator): string
    {
        return "\x86"
            . "\x10" . Encoder::int($spaceId)
            . "\x11" . Encoder::int($indexId)
            . "\x12" . Encoder::int($limit)
            . "\x13" . Encoder::int($offset)
            . "\x14" . Encoder::int($iterator)
            . "\x20" . $this->encoder->list($key);
    }

    /** @param list<mixed> $tuple an insert's or a replace's */
    public function tuple(int $spaceId, array $tuple): string
    {
        return "\x82\x10" . Encoder::int($spaceId) . "\x21" . $this->encoder->list($tuple);
    }

    /**
     * @param list<mixed> $key
     * @param list<list<mixed>> $operations
     */
    public function update(int $spaceId, int $indexId, array $key, array $operations): string
    {
        return "\x84\x10" . Encoder::int($spaceId)
            . "\x11" . Encoder::int($indexId)
            . "\x20" . $this->encoder->list($key)
            . "\x21" . $this->encoder->list($operations);
    }

    /**
     * @param list<mixed> $tuple
     * @param list<list<mixed>> $operations
     */
    public function upsert(int $spaceId, array $tuple, array $operations): string
    {
        return "\x83\x10" . Encoder::int($spaceId)
            . "\x21" . $this->encoder->list($tuple)
            . "\x28" . $this->encoder->list($operations);
    }

    /** @param list<mixed> $key */
    public function delete(int $spaceId, int $indexId, array $key): string
    {
        return "\x83\x10" . Encoder::int($spaceId) . "\x11" . Encoder::int($indexId) . "\x20" . $this->encoder->list($key);
    }

    /** @param list<mixed> $arguments */
    public function call(string $function, array $arguments): string
    {
        return "\x82\x22" . Encoder::str($function) . "\x21" . $this->encoder->list($arguments);
    }

    /** @param list<mixed> $arguments */
    public function evaluate(string $expression, array $arguments): string
    {
        return "\x82\x27" . Encoder::str($expression) . "\x21" . $this->encoder->list($arguments);
    }

    /** @param list<mixed> $bindings */
    public function execute(string|int $statement, array $bindings): string
    {
        return "\x82" . (\is_int($statement) ? "\x43" . Encoder::int($statement) : "\x40" . Encoder::str($statement))
            . "\x41" . $this->encoder->list($bindings);
    }

    public function prepare(string $sql): string
    {
        return "\x81\x40" . Encoder::str($sql);
    }

    public function unprepare(int $statementId): string
    {
        return "\x81\x43" . Encoder::int($statementId);
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
