<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Wire;

use Bobbin\Jobs\JobProtocolException;

/**
 * Cuts a byte stream into frames: a u32 little-endian length, then that many bytes — the framing
 * of the IPC wire (docs/IPC.md), so the jobs connection reads like every other Bobbin socket.
 * Bytes are appended as they arrive and whole frames taken one by one.
 */
final class FrameDecoder
{
    private string $buffer = '';
    private int $position = 0;

    public function __construct(private readonly int $maxFrame)
    {
    }

    public static function frame(string $payload): string
    {
        return \pack('V', \strlen($payload)) . $payload;
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

    /**
     * The next whole frame's payload, or null until more bytes arrive.
     *
     * @throws JobProtocolException for a length over the limit (nothing after it can be trusted)
     */
    public function next(): ?string
    {
        $available = \strlen($this->buffer) - $this->position;
        if ($available < 4) {
            return null;
        }
        $header = \unpack('V', $this->buffer, $this->position);
        \assert($header !== false);
        $length = $header[1];
        if ($length > $this->maxFrame) {
            throw new JobProtocolException(\sprintf('A frame of %d bytes exceeds the limit of %d bytes', $length, $this->maxFrame));
        }
        if ($available - 4 < $length) {
            return null;
        }
        $payload = \substr($this->buffer, $this->position + 4, $length);
        $this->position += 4 + $length;
        if ($this->position === \strlen($this->buffer)) {
            $this->buffer = '';
            $this->position = 0;
        }

        return $payload;
    }

    /** Whether bytes of an unfinished frame are buffered. */
    public function hasPartialFrame(): bool
    {
        return \strlen($this->buffer) > $this->position;
    }
}
