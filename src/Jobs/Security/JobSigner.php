<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Security;

/**
 * Signs and verifies job messages: HMAC-SHA256 over what the message is for (its context), its
 * deadline and its bytes. A message is
 *
 *     u8 version (1), 4 bytes key id, f64 deadline (unix seconds, little-endian), 32 bytes MAC, body
 *
 * The contexts bind a message to its use: a task to the reply subject its answers go to (so a
 * copy sent with another reply subject is refused), every reply to the id of its task (so an
 * authentic result of one task cannot pass as another's), cancels to themselves. open() checks
 * the MAC before anything else, in constant time, and the deadline after it.
 *
 * The HMAC is computed through OpenSSL's SHA-256 (hash_hmac() is ~9x slower on a 12 KB result
 * here: bench/jobs/payload-codecs.php); the same bytes as hash_hmac('sha256', …).
 */
final class JobSigner
{
    private const VERSION = "\x01";
    private const HEADER = 1 + 4 + 8;
    private const MAC = 32;

    private static ?bool $openssl = null;

    public function __construct(private readonly JobKeys $keys)
    {
    }

    public function sealTask(string $body, string $replySubject, float $deadline): string
    {
        return $this->seal("task\0" . $replySubject, $body, $deadline);
    }

    /** @throws JobAuthenticationException */
    public function openTask(string $message, string $replySubject, ?float $now = null): string
    {
        return $this->open("task\0" . $replySubject, $message, $now);
    }

    public function sealReply(string $taskId, string $body, float $deadline): string
    {
        return $this->seal("reply\0" . $taskId, $body, $deadline);
    }

    /** @throws JobAuthenticationException */
    public function openReply(string $taskId, string $message, ?float $now = null): string
    {
        return $this->open("reply\0" . $taskId, $message, $now);
    }

    public function sealCancel(string $body, float $deadline): string
    {
        return $this->seal("cancel\0", $body, $deadline);
    }

    /** @throws JobAuthenticationException */
    public function openCancel(string $message, ?float $now = null): string
    {
        return $this->open("cancel\0", $message, $now);
    }

    /** Which keys this side has, for a refusal's message (ids only). */
    public function describeKeys(): string
    {
        return \implode(', ', $this->keys->ids());
    }

    private function seal(string $context, string $body, float $deadline): string
    {
        [$id, $inner, $outer] = $this->keys->signing();
        $header = self::VERSION . $id . \pack('e', $deadline);

        return $header . self::mac($inner, $outer, $context, $header, $body) . $body;
    }

    /** @throws JobAuthenticationException */
    private function open(string $context, string $message, ?float $now): string
    {
        if (\strlen($message) < self::HEADER + self::MAC || $message[0] !== self::VERSION) {
            throw new JobAuthenticationException(RefusalReason::Unsigned, \sprintf('a message of %d bytes that is not a signed job message', \strlen($message)));
        }
        $id = \substr($message, 1, 4);
        $key = $this->keys->byId($id);
        if ($key === null) {
            throw new JobAuthenticationException(RefusalReason::UnknownKey, \sprintf(
                'a message signed with key %s, which is not one of this side\'s (%s): is --jobs-key-file the same on both sides?',
                \bin2hex($id),
                $this->describeKeys(),
            ));
        }
        $header = \substr($message, 0, self::HEADER);
        $body = \substr($message, self::HEADER + self::MAC);
        if (!\hash_equals(self::mac($key[1], $key[2], $context, $header, $body), \substr($message, self::HEADER, self::MAC))) {
            throw new JobAuthenticationException(RefusalReason::BadSignature, 'a message whose signature does not match (altered, or meant for another task or reply subject)');
        }
        $deadline = \unpack('e', $message, 5);
        \assert($deadline !== false);
        $now ??= \microtime(true);
        if (!($now <= $deadline[1])) {
            throw new JobAuthenticationException(RefusalReason::Expired, \sprintf('an authentic message %.1f s past its deadline (a replay, or it waited too long)', $now - $deadline[1]));
        }

        return $body;
    }

    private static function mac(string $inner, string $outer, string $context, string $header, string $body): string
    {
        // The context's length first, so no context and body can be cut another way to the same input.
        $message = \pack('v', \strlen($context)) . $context . $header . $body;

        if (self::$openssl ??= \function_exists('openssl_digest')) {
            $innerHash = \openssl_digest($inner . $message, 'sha256', true);
            $mac = $innerHash === false ? false : \openssl_digest($outer . $innerHash, 'sha256', true);
            if ($mac !== false) {
                return $mac;
            }
        }

        return \hash('sha256', $outer . \hash('sha256', $inner . $message, true), true);
    }
}
