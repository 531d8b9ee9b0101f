<?php

declare(strict_types=1);

namespace Bobbin\Http\Message;

/**
 * Validation of header fields set through the PSR-7 API (RFC 9110 §5): names are tokens,
 * values have no control characters but HTAB. A CR or LF in either would let a value start a
 * new header line or end the head (header injection), so both are refused outright.
 *
 * Regular expressions rather than strspn()/strcspn(): PHP runs those as a loop over the
 * allowed characters for every byte (~0.2–0.3 µs for a typical name or value), while a JIT-
 * compiled pattern takes ~0.03 µs — and this runs for every header of every response.
 *
 * @internal used by the message classes
 */
final class HeaderRules
{
    /**
     * A value that is valid and needs no trimming: no control character but HTAB, and neither
     * starts nor ends with whitespace. Most values are like that, so one match settles them.
     */
    private const CLEAN_VALUE = '/^(?:[^\x00-\x20\x7f](?:[^\x00-\x08\x0a-\x1f\x7f]*[^\x00-\x20\x7f])?)?$/D';
    /** Names are the application's own (a handful); the bound only keeps a runaway caller from growing it. */
    private const KNOWN_NAMES_LIMIT = 512;

    /**
     * Header names found valid so far => their lower case. An application sets the same few
     * names on every response; each is checked once per process, not once per withHeader().
     *
     * @var array<string, string>
     */
    private static array $knownNames = [];
    /** Values this short are remembered once found clean (a content type, a cache policy); longer ones (a cookie, a token) seldom repeat. */
    private const KNOWN_VALUE_BYTES = 64;
    /**
     * Short values found clean so far (CLEAN_VALUE): an application sets the same few values
     * on every response, each matched once per process rather than once per response.
     * Bounded as $knownNames is.
     *
     * @var array<string, true>
     */
    private static array $knownValues = [];
    /**
     * The last set of fields found plain by areKnownPlainFields(): an application passes the
     * same array literal on every response, and `===` on the same array is one comparison, where
     * the check is a loop (a trace of its own in the tracing JIT). Being plain is a property of
     * the strings alone, so it holds for an equal array whatever was forgotten since.
     *
     * @var array<array-key, mixed>
     */
    private static array $lastPlainFields = [];

    private function __construct()
    {
    }

    /**
     * Whether $headers (name => value) are fields that passed the checks before, each one
     * string, no two names alike but for case: such headers are valid as they are, and
     * values() would return each value unchanged.
     *
     * @param array<array-key, mixed> $headers
     * @phpstan-assert-if-true array<string, string> $headers
     */
    public static function areKnownPlainFields(array $headers): bool
    {
        if ($headers === HeaderRules::$lastPlainFields) {
            return true;
        }
        $lowers = [];
        $many = \count($headers) > 1; // one field: no set of names to make
        foreach ($headers as $name => $value) {
            if (!\is_string($value) || !isset(HeaderRules::$knownValues[$value]) || !\is_string($name) || !isset(HeaderRules::$knownNames[$name])) {
                return false;
            }
            if ($many) {
                $lowers[HeaderRules::$knownNames[$name]] = true;
            }
        }

        if ($many && \count($lowers) !== \count($headers)) {
            return false;
        }
        HeaderRules::$lastPlainFields = $headers;

        return true;
    }

    /**
     * $name in lower case, for the case-insensitive map, once it is known to be a token.
     *
     * @throws \InvalidArgumentException
     */
    public static function lowerName(string $name): string
    {
        return HeaderRules::$knownNames[$name] ?? self::learnName($name);
    }

    /** RFC 9110 token (tchar): what header names and methods are made of. */
    public static function isToken(string $value): bool
    {
        return \preg_match('/^[!#$%&\'*+\-.^_`|~0-9A-Za-z]+$/D', $value) === 1;
    }

    /** No control character but HTAB (obs-text, bytes from 0x80, is allowed as RFC 9110 does). */
    public static function hasNoControlCharacters(string $value): bool
    {
        return \preg_match('/[\x00-\x08\x0a-\x1f\x7f]/', $value) === 0;
    }

    /** @throws \InvalidArgumentException */
    public static function assertName(string $name): void
    {
        if (!self::isToken($name)) {
            throw new \InvalidArgumentException('Header name "' . \addcslashes($name, "\0..\37\177..\377") . '" is not an RFC 9110 token');
        }
    }

    /**
     * One value or a non-empty list of them, as strings without surrounding whitespace (which
     * RFC 9110 says is not part of the value). Numbers are accepted and converted, as other
     * PSR-7 implementations do, so `withHeader('Content-Length', 42)` works.
     *
     * @return non-empty-list<string>
     * @throws \InvalidArgumentException
     */
    public static function values(mixed $value): array
    {
        if (\is_string($value)) {
            if (isset(HeaderRules::$knownValues[$value])) {
                return [$value];
            }
            if (\preg_match(self::CLEAN_VALUE, $value) === 1) {
                if (\strlen($value) <= self::KNOWN_VALUE_BYTES) {
                    if (\count(HeaderRules::$knownValues) >= self::KNOWN_NAMES_LIMIT) {
                        HeaderRules::$knownValues = [];
                    }
                    HeaderRules::$knownValues[$value] = true;
                }

                return [$value];
            }
        }
        if (!\is_array($value)) {
            return [self::value($value)];
        }
        if ($value === []) {
            throw new \InvalidArgumentException('Header values must be a string or a non-empty array of strings');
        }
        $values = [];
        foreach ($value as $one) {
            $values[] = self::value($one);
        }

        return $values;
    }

    /** @throws \InvalidArgumentException */
    private static function learnName(string $name): string
    {
        self::assertName($name);
        if (\count(HeaderRules::$knownNames) >= self::KNOWN_NAMES_LIMIT) {
            HeaderRules::$knownNames = [];
        }

        return HeaderRules::$knownNames[$name] = \strtolower($name);
    }

    /** @throws \InvalidArgumentException */
    private static function value(mixed $value): string
    {
        if (\is_int($value) || \is_float($value)) {
            $value = (string) $value;
        } elseif (!\is_string($value)) {
            throw new \InvalidArgumentException('Header values must be strings or numbers, ' . \get_debug_type($value) . ' given');
        }
        if (!self::hasNoControlCharacters($value)) {
            throw new \InvalidArgumentException('Header values must not contain control characters such as CR, LF or NUL');
        }

        return \trim($value, " \t");
    }
}
