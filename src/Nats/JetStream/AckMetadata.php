<?php

declare(strict_types=1);

namespace Bobbin\Nats\JetStream;

/**
 * What the reply subject of a message delivered by a consumer says about it:
 * $JS.ACK.<stream>.<consumer>.<delivered>.<stream seq>.<consumer seq>.<nanoseconds>.<pending>
 * (and the longer form with a domain and an account hash before the stream). Pure.
 */
final readonly class AckMetadata
{
    public function __construct(
        public string $stream,
        public string $consumer,
        /** How many times this message has been delivered, this time included (2 and more: a redelivery). */
        public int $delivered,
        public int $streamSequence,
        public int $consumerSequence,
        /** When it was stored, nanoseconds since the epoch. */
        public int $timestamp,
        /** Messages left for the consumer after this one. */
        public int $pending,
    ) {
    }

    public static function parse(string $replySubject): ?self
    {
        $tokens = \explode('.', $replySubject);
        $count = \count($tokens);
        if ($count < 9 || $tokens[0] !== '$JS' || $tokens[1] !== 'ACK') {
            return null;
        }
        // The long form puts a domain and an account hash before the stream, and may end with a random token.
        $offset = $count >= 11 ? 4 : 2;
        $numbers = \array_slice($tokens, $offset + 2, 5);
        if (\count($numbers) !== 5 || \array_filter($numbers, static fn (string $n): bool => !\ctype_digit($n)) !== []) {
            return null;
        }

        return new self(
            $tokens[$offset],
            $tokens[$offset + 1],
            (int) $numbers[0],
            (int) $numbers[1],
            (int) $numbers[2],
            (int) $numbers[3],
            (int) $numbers[4],
        );
    }
}
