<?php

declare(strict_types=1);

namespace Bobbin\Nats\Internal;

use Bobbin\Nats\Headers;

/**
 * What the client sends, byte for byte: CONNECT, PUB, HPUB, SUB, UNSUB, PING, PONG. Subjects,
 * queue groups and reply subjects are checked before anything is built: a space or a control
 * character in one would split the command and let its rest be read as another. Pure.
 *
 * @internal
 */
final class Commands
{
    public const PING = "PING\r\n";
    public const PONG = "PONG\r\n";

    private function __construct()
    {
    }

    /** @param array<string, mixed> $options */
    public static function connect(array $options): string
    {
        return 'CONNECT ' . \json_encode($options, \JSON_THROW_ON_ERROR | \JSON_UNESCAPED_SLASHES | \JSON_UNESCAPED_UNICODE) . "\r\n";
    }

    public static function publish(string $subject, string $payload, ?string $replyTo = null, ?Headers $headers = null): string
    {
        self::checkSubject($subject, false);
        if ($replyTo !== null) {
            self::checkSubject($replyTo, false, 'reply subject');
        }
        $reply = $replyTo === null ? '' : $replyTo . ' ';
        if ($headers === null) {
            return 'PUB ' . $subject . ' ' . $reply . \strlen($payload) . "\r\n" . $payload . "\r\n";
        }
        $block = $headers->encode();
        $headerSize = \strlen($block);

        return 'HPUB ' . $subject . ' ' . $reply . $headerSize . ' ' . ($headerSize + \strlen($payload)) . "\r\n" . $block . $payload . "\r\n";
    }

    public static function subscribe(string $subject, int $sid, ?string $queueGroup = null): string
    {
        self::checkSubject($subject, true);
        if ($queueGroup !== null) {
            self::checkToken($queueGroup, 'queue group');
        }

        return 'SUB ' . $subject . ' ' . ($queueGroup === null ? '' : $queueGroup . ' ') . $sid . "\r\n";
    }

    /** @param int|null $afterMessages unsubscribe once this many messages in all were delivered to it (null: now) */
    public static function unsubscribe(int $sid, ?int $afterMessages = null): string
    {
        return 'UNSUB ' . $sid . ($afterMessages === null ? '' : ' ' . $afterMessages) . "\r\n";
    }

    /**
     * A subject is dot-separated tokens, none empty; to subscribe, a token may be "*" and the
     * last may be ">"; to publish, no wildcard at all.
     *
     * @throws \InvalidArgumentException
     */
    public static function checkSubject(string $subject, bool $wildcards, string $what = 'subject'): void
    {
        if ($subject === '' || \preg_match('/[\x00-\x20\x7f]/', $subject) === 1) {
            throw new \InvalidArgumentException(\sprintf('The %s %s is empty or holds whitespace or control characters', $what, \json_encode($subject)));
        }
        if ($subject[0] === '.' || \str_ends_with($subject, '.') || \str_contains($subject, '..')) {
            throw new \InvalidArgumentException(\sprintf('The %s %s has an empty token', $what, \json_encode($subject)));
        }
        if (\strpbrk($subject, '*>') === false) {
            return;
        }
        $tokens = \explode('.', $subject);
        $last = \count($tokens) - 1;
        foreach ($tokens as $i => $token) {
            if ($token === '*' || $token === '>') {
                if (!$wildcards) {
                    throw new \InvalidArgumentException(\sprintf('The %s %s holds a wildcard: a message is published to one subject', $what, \json_encode($subject)));
                }
                if ($token === '>' && $i !== $last) {
                    throw new \InvalidArgumentException(\sprintf('The %s %s has ">" before its last token', $what, \json_encode($subject)));
                }
            }
        }
    }

    /** @throws \InvalidArgumentException */
    private static function checkToken(string $token, string $what): void
    {
        if ($token === '' || \preg_match('/[\x00-\x20\x7f]/', $token) === 1) {
            throw new \InvalidArgumentException(\sprintf('The %s %s is empty or holds whitespace or control characters', $what, \json_encode($token)));
        }
    }

    /** Whether a queued command is still wanted on the next connection after a disconnect (publishes are). */
    public static function survivesReconnect(string $command): bool
    {
        return $command !== self::PING && $command !== self::PONG && !\str_starts_with($command, 'SUB ') && !\str_starts_with($command, 'UNSUB ');
    }
}
