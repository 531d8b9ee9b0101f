<?php

declare(strict_types=1);

namespace Bobbin\Redis\Internal;

use Bobbin\Redis\Exception\ProtocolException;
use Bobbin\Redis\Message;
use Bobbin\Redis\SubscriptionEvent;
use Bobbin\Redis\VerbatimString;

/**
 * Incremental RESP2/RESP3 reply parser for one connection. Bytes are appended as they arrive;
 * next() returns true with the next complete top-level reply in $reply, or false when more bytes
 * are needed. Aggregates are built on a stack that survives between calls, so a large reply
 * arriving in many reads is parsed once, never from its start again.
 *
 * Conversion by RESP type: simple and bulk strings → string; integers → int; nulls (`_`, `$-1`,
 * `*-1`) → null; doubles → float (inf, -inf, nan included); booleans → bool; big numbers →
 * string of digits (exact); verbatim strings → VerbatimString; arrays and sets → list; maps →
 * array keyed by the (scalar) keys; errors → ErrorReply; top-level pushes → Push. Attributes
 * (`|`) are read and dropped: no command this client sends asks for them.
 *
 * Over 400 lines: the RESP2 and RESP3 grammars in one pure class, with the published-message fast
 * path beside the general one it must agree with (PublishedMessagesTest).
 *
 * @internal
 */
final class RespParser
{
    private const INCOMPLETE = 0;
    private const VALUE = 1;
    private const OPENED = 2;

    private const KIND_ARRAY = 0;
    private const KIND_MAP = 1;
    private const KIND_ATTRIBUTE = 2;
    private const KIND_PUSH = 3;

    /** The reply found by the last next() that returned true. */
    public mixed $reply = null;

    private string $buffer = '';
    private int $offset = 0;
    /** The value of the element element() just read. */
    private mixed $value = null;
    /** @var array<int, int> kind of each open aggregate, outermost first */
    private array $kinds = [];
    /** @var array<int, int> elements still due in each open aggregate (a map counts keys and values) */
    private array $remaining = [];
    /** @var array<int, array<mixed>> elements read so far in each open aggregate */
    private array $items = [];
    /** @var array<int, int|string> a map's key waiting for its value */
    private array $keys = [];
    /** The chunk whose head the buffer holds from $joinedAt on, while stitched (append()). */
    private ?string $rest = null;
    private int $joinedAt = 0;
    /** The bytes before the payload of the last published message takeMessages() took, and what they said. */
    private string $messagePrefix = '';
    private string $messageChannel = '';
    private ?string $messagePattern = null;
    private bool $messageShard = false;
    private string $messageWhole = '';
    private int $messageLength = 0;

    /**
     * @param int $stitch a chunk appended behind an unparsed tail of at most this many bytes is
     *        joined to it only by its first $stitch bytes (a copy of those alone); parsing goes on
     *        in the chunk itself once past them (spill())
     */
    public function __construct(
        private readonly int $maxBulkLength = 512 * 1024 * 1024,
        private readonly int $maxLineLength = 1024 * 1024,
        private readonly int $maxDepth = 128,
        private readonly int $stitch = 65536,
    ) {
    }

    public function append(string $bytes): void
    {
        if ($this->rest !== null) {
            $this->spill();
        }
        if ($this->offset === \strlen($this->buffer)) {
            $this->buffer = $bytes;
            $this->offset = 0;

            return;
        }
        $tail = \strlen($this->buffer) - $this->offset;
        if ($tail <= $this->stitch && \strlen($bytes) > 2 * $this->stitch) {
            // The partial reply left at the end of the last chunk, and the head of this one.
            $this->buffer = \substr($this->buffer, $this->offset) . \substr($bytes, 0, $this->stitch);
            $this->offset = 0;
            $this->rest = $bytes;
            $this->joinedAt = $tail;

            return;
        }
        if ($this->offset > 65536) {
            $this->buffer = \substr($this->buffer, $this->offset);
            $this->offset = 0;
        }
        $this->buffer .= $bytes;
    }

    /**
     * At the end of a stitched buffer (append()): past the tail, on into the chunk itself,
     * without a copy; with an element still begun in the tail, the rest of the chunk joined to
     * it (a copy, as append() makes without stitching). Whether the buffer changed.
     */
    private function spill(): bool
    {
        if ($this->rest === null) {
            return false;
        }
        if ($this->offset >= $this->joinedAt) {
            $this->offset -= $this->joinedAt;
            $this->buffer = $this->rest;
        } else {
            $this->buffer = \substr($this->buffer, $this->offset) . \substr($this->rest, \strlen($this->buffer) - $this->joinedAt);
            $this->offset = 0;
        }
        $this->rest = null;

        return true;
    }

    /**
     * Pub/sub's fast path: takes every complete published message at the front of the buffer —
     * a `message`, `pmessage` or `smessage` push (RESP3 `>`, RESP2 `*`) of bulk strings in the
     * shape Redis sends — as a Message appended to $into, and stops at anything else, which
     * next() then parses (or rejects) as it always does; so does anything incomplete. No
     * intermediate arrays, one pass over the buffer: a subscriber spends its time here. The
     * bytes before the payload (kind, pattern, channel) usually repeat: when they are the same
     * as the previous message's, one comparison stands for their parsing, and the message
     * shares the previous one's channel string; so does a payload length that repeats.
     *
     * @param list<SubscriptionEvent> $into
     * @return int the bytes taken
     */
    public function takeMessages(array &$into): int
    {
        if ($this->kinds !== []) {
            return 0; // inside an aggregate: next() goes on with it
        }
        $buffer = $this->buffer;
        $size = \strlen($buffer);
        $offset = $this->offset;
        $from = $offset;
        $prefix = $this->messagePrefix;
        $prefixLength = \strlen($prefix);
        $channel = $this->messageChannel;
        $pattern = $this->messagePattern;
        $shard = $this->messageShard;
        // The head and the payload's length line together ("…$16\r\n"), and that length.
        $whole = $this->messageWhole;
        $wholeLength = \strlen($whole);
        $length = $this->messageLength;
        while ($size - $offset > 18) {
            if ($wholeLength !== 0 && \substr_compare($buffer, $whole, $offset, $wholeLength) === 0) {
                $data = $offset + $wholeLength;
            } else {
                if ($prefixLength === 0 || \substr_compare($buffer, $prefix, $offset, $prefixLength) !== 0) {
                    $at = $this->messageHead($buffer, $offset);
                    if ($at === 0) {
                        break;
                    }
                    $wholeLength = 0;
                    $prefixLength = $at - $offset;
                    $prefix = $this->messagePrefix = \substr($buffer, $offset, $prefixLength);
                    $channel = $this->messageChannel;
                    $pattern = $this->messagePattern;
                    $shard = $this->messageShard;
                }
                // The payload: "$LENGTH\r\nDATA\r\n", its '$' in the prefix.
                $at = $offset + $prefixLength;
                $end = \strpos($buffer, "\r\n", $at);
                if ($end === false) {
                    break;
                }
                $text = \substr($buffer, $at, $end - $at);
                if (!\ctype_digit($text) || $end - $at > 10 || ($length = (int) $text) > $this->maxBulkLength) {
                    $wholeLength = 0;
                    break; // a null, a sign, garbage, over the limit: next() decides
                }
                $data = $end + 2;
                $wholeLength = $data - $offset;
                $whole = \substr($buffer, $offset, $wholeLength);
            }
            $stop = $data + $length;
            if ($stop + 2 > $size || $buffer[$stop] !== "\r" || $buffer[$stop + 1] !== "\n") {
                break;
            }
            $into[] = new Message($channel, \substr($buffer, $data, $length), $pattern, $shard);
            $offset = $stop + 2;
        }
        $this->messageWhole = $wholeLength === 0 ? '' : $whole;
        $this->messageLength = $length;
        $this->offset = $offset;
        if ($this->rest !== null && $offset >= $this->joinedAt) {
            $this->spill(); // into the chunk itself: the messages go on there

            return $offset - $from + $this->takeMessages($into);
        }

        return $offset - $from;
    }

    /**
     * The kind, pattern and channel of a published message at $offset, into messageChannel,
     * messagePattern, messageShard: the offset of its payload's length (after the '$'), or 0
     * when what is there is not a message in the expected shape, or not whole yet.
     */
    private function messageHead(string $buffer, int $offset): int
    {
        $type = $buffer[$offset];
        if ($type !== '>' && $type !== '*') {
            return 0;
        }
        // "3\r\n$7\r\nmessage\r\n$", "4\r\n$8\r\npmessage\r\n$" or "3\r\n$8\r\nsmessage\r\n$"
        $kind = $buffer[$offset + 8];
        if ($kind === 'm' && \substr_compare($buffer, "3\r\n\$7\r\nmessage\r\n\$", $offset + 1, 17) === 0) {
            $at = $offset + 18;
        } elseif (($kind === 'p' || $kind === 's') && \substr_compare($buffer, $kind === 'p' ? "4\r\n\$8\r\npmessage\r\n\$" : "3\r\n\$8\r\nsmessage\r\n\$", $offset + 1, 18) === 0) {
            $at = $offset + 19;
        } else {
            return 0;
        }
        $size = \strlen($buffer);
        $strings = [];
        for ($i = $kind === 'p' ? 2 : 1; $i > 0; $i--) {
            // At $at: the digits of "$LENGTH\r\nDATA\r\n$", the '$' already checked.
            $end = \strpos($buffer, "\r\n", $at);
            if ($end === false || $end - $at > 10) {
                return 0;
            }
            $digits = \substr($buffer, $at, $end - $at);
            $length = (int) $digits;
            if (!\ctype_digit($digits) || $length > $this->maxBulkLength) {
                return 0;
            }
            $at = $end + 2 + $length;
            if ($at + 3 > $size || \substr_compare($buffer, "\r\n\$", $at, 3) !== 0) {
                return 0;
            }
            $strings[] = \substr($buffer, $end + 2, $length);
            $at += 3;
        }
        $this->messageChannel = $strings[$kind === 'p' ? 1 : 0];
        $this->messagePattern = $kind === 'p' ? $strings[0] : null;
        $this->messageShard = $kind === 's';

        return $at;
    }

    /** Whether bytes were received that are not part of a reply returned yet. */
    public function hasUnreadBytes(): bool
    {
        return $this->offset < \strlen($this->buffer) || $this->kinds !== [] || $this->rest !== null;
    }

    /**
     * Parses the next complete reply into $reply.
     *
     * @throws ProtocolException
     */
    public function next(): bool
    {
        while (true) {
            $found = $this->element();
            if ($found === self::INCOMPLETE) {
                return false;
            }
            if ($found === self::OPENED) {
                continue;
            }
            $value = $this->value;
            // Fold the value into the open aggregates, closing those it completes.
            while (true) {
                $depth = \count($this->kinds) - 1;
                if ($depth < 0) {
                    $this->reply = $value;
                    $this->value = null;

                    return true;
                }
                if ($this->kinds[$depth] === self::KIND_MAP || $this->kinds[$depth] === self::KIND_ATTRIBUTE) {
                    if ($this->remaining[$depth] % 2 === 0) {
                        $this->keys[$depth] = self::mapKey($value);
                    } else {
                        $this->items[$depth][$this->keys[$depth]] = $value;
                    }
                } else {
                    $this->items[$depth][] = $value;
                }
                if (--$this->remaining[$depth] > 0) {
                    break;
                }
                $kind = \array_pop($this->kinds);
                \array_pop($this->remaining);
                \array_pop($this->keys);
                $value = \array_pop($this->items);
                if ($kind === self::KIND_ATTRIBUTE) {
                    break; // dropped: the element it describes comes next, at this same level
                }
                if ($kind === self::KIND_PUSH && $depth === 0) {
                    $value = new Push($value ?? []);
                }
            }
        }
    }

    /** Reads one element at the offset: a whole scalar, or the header of an aggregate. */
    private function element(): int
    {
        $buffer = $this->buffer;
        $offset = $this->offset;
        if ($offset >= \strlen($buffer)) {
            return $this->spill() ? $this->element() : self::INCOMPLETE;
        }
        $end = \strpos($buffer, "\r\n", $offset + 1);
        if ($end === false) {
            if (\strlen($buffer) - $offset > $this->maxLineLength) {
                throw new ProtocolException(\sprintf('A reply line is longer than %d bytes', $this->maxLineLength));
            }

            return $this->spill() ? $this->element() : self::INCOMPLETE;
        }
        $type = $buffer[$offset];
        $line = \substr($buffer, $offset + 1, $end - $offset - 1);
        switch ($type) {
            case '$':
            case '=':
            case '!':
                $length = self::integer($line, $type);
                if ($length < 0) {
                    if ($length !== -1 || $type !== '$') {
                        throw new ProtocolException(\sprintf('Invalid length %d of a "%s" reply', $length, $type));
                    }
                    $this->offset = $end + 2;
                    $this->value = null;

                    return self::VALUE;
                }
                if ($length > $this->maxBulkLength) {
                    throw new ProtocolException(\sprintf('A bulk reply of %d bytes is over the limit of %d', $length, $this->maxBulkLength));
                }
                $start = $end + 2;
                if (\strlen($buffer) < $start + $length + 2) {
                    return $this->spill() ? $this->element() : self::INCOMPLETE;
                }
                if (\substr_compare($buffer, "\r\n", $start + $length, 2) !== 0) {
                    throw new ProtocolException('A bulk reply does not end with CRLF where its length says');
                }
                $data = \substr($buffer, $start, $length);
                $this->offset = $start + $length + 2;
                if ($type === '$') {
                    $this->value = $data;
                } elseif ($type === '!') {
                    $this->value = new ErrorReply($data);
                } else {
                    if ($length < 4 || $data[3] !== ':') {
                        throw new ProtocolException('A verbatim string must start with a three-letter format and a colon');
                    }
                    $this->value = new VerbatimString(\substr($data, 0, 3), \substr($data, 4));
                }

                return self::VALUE;
            case '+':
                $this->value = $line;
                break;
            case ':':
                $this->value = self::integer($line, ':');
                break;
            case '-':
                $this->value = new ErrorReply($line);
                break;
            case '*':
            case '~':
            case '>':
            case '%':
            case '|':
                $count = self::integer($line, $type);
                $this->offset = $end + 2;
                if ($count === -1 && $type === '*') {
                    $this->value = null;

                    return self::VALUE;
                }
                if ($count < 0) {
                    throw new ProtocolException(\sprintf('Invalid count %d of a "%s" reply', $count, $type));
                }
                $kind = match ($type) {
                    '%' => self::KIND_MAP,
                    '|' => self::KIND_ATTRIBUTE,
                    '>' => self::KIND_PUSH,
                    default => self::KIND_ARRAY,
                };
                if ($count === 0) {
                    if ($kind === self::KIND_ATTRIBUTE) {
                        return self::OPENED; // nothing to drop; the described element follows
                    }
                    $this->value = $kind === self::KIND_PUSH && $this->kinds === [] ? new Push([]) : [];

                    return self::VALUE;
                }
                if (\count($this->kinds) >= $this->maxDepth) {
                    throw new ProtocolException(\sprintf('A reply nests deeper than %d levels', $this->maxDepth));
                }
                $this->kinds[] = $kind;
                $this->remaining[] = $kind === self::KIND_MAP || $kind === self::KIND_ATTRIBUTE ? 2 * $count : $count;
                $this->items[] = [];
                $this->keys[] = '';

                return self::OPENED;
            case '_':
                if ($line !== '') {
                    throw new ProtocolException('A RESP3 null carries nothing');
                }
                $this->value = null;
                break;
            case '#':
                $this->value = match ($line) {
                    't' => true,
                    'f' => false,
                    default => throw new ProtocolException(\sprintf('Invalid boolean "%s"', self::shown($line))),
                };
                break;
            case ',':
                $this->value = self::double($line);
                break;
            case '(':
                if (\preg_match('/^[-+]?[0-9]+$/D', $line) !== 1) {
                    throw new ProtocolException(\sprintf('Invalid big number "%s"', self::shown($line)));
                }
                $this->value = \ltrim($line, '+');
                break;
            default:
                throw new ProtocolException(\sprintf('Unexpected byte 0x%02x where a reply should start', \ord($type)));
        }
        $this->offset = $end + 2;

        return self::VALUE;
    }

    private static function integer(string $line, string $type): int
    {
        $value = (int) $line;
        if ((string) $value !== $line) {
            if ($line === '?') {
                throw new ProtocolException(\sprintf('Streamed "%s" replies are not supported', $type));
            }
            if (\preg_match('/^\+?0*([0-9]+)$/D', $line, $m) !== 1 || $m[1] !== (string) (int) $m[1]) {
                throw new ProtocolException(\sprintf('Invalid number "%s" in a "%s" reply', self::shown($line), $type));
            }
            $value = (int) $m[1];
        }

        return $value;
    }

    private static function double(string $line): float
    {
        return match (\strtolower($line)) {
            'inf', '+inf' => \INF,
            '-inf' => -\INF,
            'nan', '-nan' => \NAN,
            default => \is_numeric($line) ? (float) $line : throw new ProtocolException(\sprintf('Invalid double "%s"', self::shown($line))),
        };
    }

    private static function mapKey(mixed $key): int|string
    {
        return match (true) {
            \is_string($key), \is_int($key) => $key,
            \is_float($key) => \var_export($key, true),
            \is_bool($key) => (int) $key,
            $key === null => '',
            $key instanceof VerbatimString => $key->text,
            default => throw new ProtocolException('A map key that is not a scalar (an aggregate or an error) is not supported'),
        };
    }

    private static function shown(string $bytes): string
    {
        return \addcslashes(\substr($bytes, 0, 40), "\0..\37\177..\377");
    }
}
