<?php

declare(strict_types=1);

namespace Bobbin\Nats;

use Bobbin\Nats\Exception\ProtocolException;

/**
 * The headers of a message (HPUB/HMSG): "NATS/1.0[ status[ description]]", then "Name: value"
 * lines, then an empty line. A status comes only from the server (503: no responders; 404, 408,
 * 409: JetStream pull answers; 100: idle heartbeat). Names keep their case; get() falls back to a
 * case-insensitive match. Immutable; pure encode/decode.
 */
final class Headers
{
    private const VERSION = 'NATS/1.0';

    /** @param array<string, list<string>> $fields */
    private function __construct(
        private readonly array $fields,
        public readonly ?int $status = null,
        public readonly string $description = '',
    ) {
    }

    /**
     * @param array<string, string|list<string>> $fields
     * @throws \InvalidArgumentException for a name that is not a token or a value with CR, LF or NUL
     */
    public static function of(array $fields): self
    {
        $normalized = [];
        foreach ($fields as $name => $values) {
            $name = (string) $name;
            if ($name === '' || \strspn($name, "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") !== \strlen($name)) {
                throw new \InvalidArgumentException(\sprintf('The header name %s is not a token', \json_encode($name)));
            }
            foreach (\is_array($values) ? $values : [$values] as $value) {
                if (\strpbrk($value, "\r\n\0") !== false) {
                    throw new \InvalidArgumentException(\sprintf('The value of header %s holds CR, LF or NUL', $name));
                }
                $normalized[$name][] = $value;
            }
        }

        return new self($normalized);
    }

    /** The same headers with $name set to $value (replacing what it had). */
    public function with(string $name, string $value): self
    {
        $fields = $this->fields;
        $fields[$name] = [$value];

        return self::of($fields);
    }

    public function get(string $name): ?string
    {
        $values = $this->fields[$name] ?? null;
        if ($values === null) {
            foreach ($this->fields as $key => $candidates) {
                if (\strcasecmp($key, $name) === 0) {
                    $values = $candidates;
                    break;
                }
            }
        }

        return $values[0] ?? null;
    }

    /** @return array<string, list<string>> */
    public function all(): array
    {
        return $this->fields;
    }

    public function encode(): string
    {
        $bytes = self::VERSION . "\r\n";
        foreach ($this->fields as $name => $values) {
            foreach ($values as $value) {
                $bytes .= $name . ': ' . $value . "\r\n";
            }
        }

        return $bytes . "\r\n";
    }

    /** @throws ProtocolException */
    public static function decode(string $block): self
    {
        if (!\str_starts_with($block, self::VERSION) || !\str_ends_with($block, "\r\n\r\n")) {
            throw new ProtocolException(\sprintf('A header block must start with NATS/1.0 and end with an empty line: %s', \json_encode(\substr($block, 0, 64))));
        }
        $lines = \explode("\r\n", \substr($block, 0, -4));
        $first = \trim(\substr(\array_shift($lines), \strlen(self::VERSION)));
        $status = null;
        $description = '';
        if ($first !== '') {
            $parts = \explode(' ', $first, 2);
            if (!\ctype_digit($parts[0]) || \strlen($parts[0]) !== 3) {
                throw new ProtocolException(\sprintf('A bad status in a header block: %s', \json_encode($first)));
            }
            $status = (int) $parts[0];
            $description = \trim($parts[1] ?? '');
        }
        $fields = [];
        foreach ($lines as $line) {
            $colon = \strpos($line, ':');
            if ($colon === false || $colon === 0) {
                throw new ProtocolException(\sprintf('A bad header line: %s', \json_encode(\substr($line, 0, 64))));
            }
            $fields[\substr($line, 0, $colon)][] = \trim(\substr($line, $colon + 1), " \t");
        }

        return new self($fields, $status, $description);
    }
}
