<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Security;

/**
 * The keys that sign and verify every job message crossing a process boundary: the first signs,
 * and during a rotation a second one is still accepted. Each is at least 32 bytes.
 *
 * Across hosts (NATS) the operator gives them (--jobs-key-file, BOBBIN_JOBS_KEY): text without
 * whitespace, one or two separated by whitespace, the signing key first. For the local pool a
 * key is generated per server start and reaches the job workers by fork().
 *
 * It never prints its keys (var_dump, print_r, exceptions) and refuses to be serialized.
 */
final class JobKeys
{
    public const MIN_BYTES = 32;
    private const BLOCK = 64;

    /** @var list<array{string, string, string}> per key, signing key first: [id, inner pad, outer pad] */
    private readonly array $keys;

    /** @throws \InvalidArgumentException for a key shorter than 32 bytes */
    public function __construct(#[\SensitiveParameter] string $signing, #[\SensitiveParameter] ?string $previous = null)
    {
        $keys = [];
        foreach ($previous === null ? [$signing] : [$signing, $previous] as $i => $key) {
            if (\strlen($key) < self::MIN_BYTES) {
                throw new \InvalidArgumentException(\sprintf(
                    'A jobs key must be at least %d bytes; the %s one has %d (make one with: openssl rand -base64 48)',
                    self::MIN_BYTES,
                    $i === 0 ? 'first' : 'second',
                    \strlen($key),
                ));
            }
            // HMAC's padded keys, computed once (RFC 2104): a key longer than a block is hashed first.
            $block = \str_pad(\strlen($key) > self::BLOCK ? \hash('sha256', $key, true) : $key, self::BLOCK, "\0");
            $keys[] = [self::idOf($key), $block ^ \str_repeat("\x36", self::BLOCK), $block ^ \str_repeat("\x5c", self::BLOCK)];
        }
        $this->keys = $keys;
    }

    /** A fresh random key for one server start (the local job socket). */
    public static function generate(): self
    {
        return new self(\random_bytes(self::MIN_BYTES));
    }

    /**
     * One or two keys separated by whitespace, the signing key first.
     *
     * @throws \InvalidArgumentException
     */
    public static function fromText(#[\SensitiveParameter] string $text, string $origin): self
    {
        $keys = \preg_split('/\s+/', \trim($text), -1, \PREG_SPLIT_NO_EMPTY) ?: [];
        if ($keys === [] || \count($keys) > 2) {
            throw new \InvalidArgumentException(\sprintf('%s must hold one jobs key, or two during a rotation (the signing key first), separated by whitespace; it holds %d', $origin, \count($keys)));
        }
        try {
            return new self($keys[0], $keys[1] ?? null);
        } catch (\InvalidArgumentException $error) {
            throw new \InvalidArgumentException($origin . ': ' . $error->getMessage());
        }
    }

    /**
     * The keys in $path, which only its owner may read: like an SSH key, a key file others can
     * read is refused.
     *
     * @throws \InvalidArgumentException
     */
    public static function fromFile(string $path): self
    {
        \clearstatcache(true, $path);
        $mode = @\fileperms($path);
        if ($mode === false || !\is_file($path)) {
            throw new \InvalidArgumentException(\sprintf('The jobs key file %s does not exist', $path));
        }
        if (($mode & 0o077) !== 0) {
            throw new \InvalidArgumentException(\sprintf('The jobs key file %s can be read by others (mode %04o): chmod 600 it', $path, $mode & 0o777));
        }
        $text = @\file_get_contents($path);
        if ($text === false) {
            throw new \InvalidArgumentException(\sprintf('Cannot read the jobs key file %s', $path));
        }

        return self::fromText($text, 'The jobs key file ' . $path);
    }

    /**
     * The operator's keys: $file (--jobs-key-file) or else $fromEnvironment (BOBBIN_JOBS_KEY's
     * value); null when neither is given.
     *
     * @throws \InvalidArgumentException
     */
    public static function configured(string $file, #[\SensitiveParameter] string $fromEnvironment): ?self
    {
        if ($file !== '') {
            return self::fromFile($file);
        }
        if ($fromEnvironment !== '') {
            return self::fromText($fromEnvironment, 'BOBBIN_JOBS_KEY');
        }

        return null;
    }

    /**
     * The key that signs: [id, inner pad, outer pad].
     *
     * @return array{string, string, string}
     */
    public function signing(): array
    {
        return $this->keys[0];
    }

    /**
     * The key with this id, if it is one of ours.
     *
     * @return array{string, string, string}|null
     */
    public function byId(string $id): ?array
    {
        foreach ($this->keys as $key) {
            if ($key[0] === $id) {
                return $key;
            }
        }

        return null;
    }

    /**
     * The ids of our keys, hex, for messages that say which keys a side has (never the keys).
     *
     * @return list<string>
     */
    public function ids(): array
    {
        return \array_map(static fn (array $key): string => \bin2hex($key[0]), $this->keys);
    }

    /** Four bytes naming a key in every message it signs, so the verifier picks the key without trying each. */
    public static function idOf(#[\SensitiveParameter] string $key): string
    {
        return \substr(\hash('sha256', "bobbin jobs key id\0" . $key, true), 0, 4);
    }

    /** @return array<string, mixed> */
    public function __debugInfo(): array
    {
        return ['ids' => $this->ids()];
    }

    /** @return never */
    public function __serialize(): array
    {
        throw new \LogicException('Jobs keys are not serialized: they would end up on disk or on the wire');
    }

    /** @param array<mixed> $data */
    public function __unserialize(array $data): void
    {
        throw new \LogicException('Jobs keys are not unserialized');
    }
}
