<?php

declare(strict_types=1);

namespace Bobbin\Nats\Internal;

use Bobbin\Nats\Exception\ProtocolException;
use Bobbin\Nats\Headers;
use Bobbin\Nats\Message;

/**
 * Cuts what the server sends into frames: MSG and HMSG become Messages, INFO, PING, PONG, +OK
 * and -ERR ServerFrames. Bytes are appended as they arrive and frames taken one by one; a frame
 * not complete yet gives null. Anything malformed — an unknown operation, a bad size, a missing
 * CRLF after a payload, a control line longer than the limit without its end — is a
 * ProtocolException: the connection cannot trust a byte after it. Pure, no I/O.
 *
 * @internal
 */
final class ProtocolParser
{
    private string $buffer = '';
    private int $position = 0;

    public function __construct(private readonly int $maxPayload = 64 * 1024 * 1024, private readonly int $maxControlLine = 4096)
    {
    }

    public function append(string $bytes): void
    {
        if ($this->position > 0) {
            // Consumed bytes go once per append, not once per frame: a read of many frames stays linear.
            $this->buffer = \substr($this->buffer, $this->position);
            $this->position = 0;
        }
        $this->buffer .= $bytes;
    }

    /** @throws ProtocolException */
    public function next(): Message|ServerFrame|null
    {
        $end = \strpos($this->buffer, "\r\n", $this->position);
        if ($end === false) {
            if (\strlen($this->buffer) - $this->position > $this->maxControlLine) {
                throw new ProtocolException(\sprintf('A control line longer than %d bytes without its end: %s…', $this->maxControlLine, $this->excerpt($this->position)));
            }

            return null;
        }
        if (\substr_compare($this->buffer, 'MSG ', $this->position, 4) === 0 && ($message = $this->plainMessage($end)) !== false) {
            return $message;
        }
        $line = \substr($this->buffer, $this->position, $end - $this->position);
        $space = \strcspn($line, " \t");
        $op = \strtoupper(\substr($line, 0, $space));
        switch ($op) {
            case 'MSG':
            case 'HMSG':
                return $this->message($op === 'HMSG', $line, $end);
            case 'PING':
            case 'PONG':
            case '+OK':
                if (\trim(\substr($line, $space)) !== '') {
                    break;
                }
                $this->position = $end + 2;

                return new ServerFrame(match ($op) {
                    'PING' => FrameKind::Ping,
                    'PONG' => FrameKind::Pong,
                    default => FrameKind::Ok,
                });
            case '-ERR':
                $this->position = $end + 2;

                return new ServerFrame(FrameKind::Err, error: \trim(\trim(\substr($line, $space)), "'"));
            case 'INFO':
                $this->position = $end + 2;
                try {
                    $info = \json_decode(\substr($line, $space), true, 16, \JSON_THROW_ON_ERROR);
                } catch (\JsonException $error) {
                    throw new ProtocolException('INFO with a body that is not JSON: ' . $error->getMessage());
                }
                if (!\is_array($info)) {
                    throw new ProtocolException('INFO with a body that is not a JSON object');
                }

                /** @var array<string, mixed> $info */
                return new ServerFrame(FrameKind::Info, $info);
        }

        throw new ProtocolException(\sprintf('An unexpected frame from the server: %s', $this->excerpt($this->position)));
    }

    /** Whether bytes of an unfinished frame are buffered. */
    public function hasPartialFrame(): bool
    {
        return \strlen($this->buffer) > $this->position;
    }

    /**
     * The usual MSG line, "MSG subject sid [reply] size" with single spaces and nothing odd, cut
     * with one explode; false for anything else, which message() reads (and judges) instead. It
     * takes only lines message() would read the same way.
     */
    private function plainMessage(int $end): Message|false|null
    {
        $args = \explode(' ', \substr($this->buffer, $this->position + 4, $end - $this->position - 4));
        $count = \count($args);
        if ($count !== 3 && $count !== 4) {
            return false;
        }
        $sid = $args[1];
        $total = $args[$count - 1];
        $replyTo = $count === 4 ? $args[2] : null;
        if (!\ctype_digit($sid) || !\ctype_digit($total) || \strlen($total) > 12 || $args[0] === '' || \str_contains($args[0], "\t")
            || ($replyTo !== null && ($replyTo === '' || \str_contains($replyTo, "\t")))) {
            return false;
        }
        $total = (int) $total;
        if ($total > $this->maxPayload) {
            return false;
        }
        $start = $end + 2;
        $length = \strlen($this->buffer);
        if ($length < $start + $total + 2) {
            return null;
        }
        if ($this->buffer[$start + $total] !== "\r" || $this->buffer[$start + $total + 1] !== "\n") {
            return false;
        }
        $payload = $total === 0 ? '' : \substr($this->buffer, $start, $total);
        $this->position = $start + $total + 2;
        if ($this->position === $length) {
            $this->buffer = '';
            $this->position = 0;
        }

        return new Message($args[0], (int) $sid, $replyTo, $payload);
    }

    /** @throws ProtocolException */
    private function message(bool $withHeaders, string $line, int $end): ?Message
    {
        $args = \preg_split('/[ \t]+/', \trim($line), -1, \PREG_SPLIT_NO_EMPTY);
        \assert($args !== false);
        $count = \count($args);
        $expected = $withHeaders ? [5, 6] : [4, 5];
        if (!\in_array($count, $expected, true)) {
            throw new ProtocolException(\sprintf('A %s line with %d arguments: %s', $args[0], $count - 1, $this->excerpt($this->position)));
        }
        $subject = $args[1];
        $sid = $args[2];
        $replyTo = $count === $expected[1] ? $args[3] : null;
        $total = $args[$count - 1];
        $headerSize = $withHeaders ? $args[$count - 2] : '0';
        if (!\ctype_digit($sid) || !\ctype_digit($total) || !\ctype_digit($headerSize) || \strlen($total) > 12 || \strlen($headerSize) > 12) {
            throw new ProtocolException(\sprintf('A %s line with a bad number: %s', $args[0], $this->excerpt($this->position)));
        }
        $total = (int) $total;
        $headerSize = (int) $headerSize;
        if ($total > $this->maxPayload || $headerSize > $total) {
            throw new ProtocolException(\sprintf('A %s of %d bytes (%d of headers) is out of bounds (largest %d)', $args[0], $total, $headerSize, $this->maxPayload));
        }
        $start = $end + 2;
        if (\strlen($this->buffer) < $start + $total + 2) {
            return null;
        }
        if (\substr($this->buffer, $start + $total, 2) !== "\r\n") {
            throw new ProtocolException(\sprintf('A %s payload of %d bytes not followed by CRLF', $args[0], $total));
        }
        $headers = null;
        if ($withHeaders) {
            $headers = Headers::decode(\substr($this->buffer, $start, $headerSize));
        }
        $payload = \substr($this->buffer, $start + $headerSize, $total - $headerSize);
        $this->position = $start + $total + 2;
        if ($this->position === \strlen($this->buffer)) {
            $this->buffer = '';
            $this->position = 0;
        }

        return new Message($subject, (int) $sid, $replyTo, $payload, $headers);
    }

    private function excerpt(int $from): string
    {
        return (string) \json_encode(\substr($this->buffer, $from, 48), \JSON_INVALID_UTF8_SUBSTITUTE | \JSON_UNESCAPED_SLASHES);
    }
}
