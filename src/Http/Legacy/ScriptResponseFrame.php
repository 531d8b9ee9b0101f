<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

/**
 * The response a script's process hands its parent (the isolated legacy mode), over a socket
 * pair. Pure. Most scripts send one frame, as they end. A script that calls flush() sends
 * its status, headers and output so far at once in a frame that says more follows ($more),
 * then a frame of further output at each flush(), the last one as it ends ($more false, the
 * fatal error if any; status and headers only in the first).
 *
 * An 8-byte length of the rest, then the status (2 bytes), whether more frames follow (1
 * byte), the number of header lines (4 bytes), each line with its 4-byte length, the fatal
 * error's message with its 4-byte length ('' when the script ended without one), and the
 * body (what remains).
 *
 * @internal from a script child to IsolatedLegacyLoop
 */
final readonly class ScriptResponseFrame
{
    /** Status, more, header line count. */
    private const HEAD = 7;

    /**
     * @param list<string> $headerLines "Name: value", as headers_list() gives them
     * @param string $fatalError the fatal error that ended the script ('' for none)
     */
    public function __construct(
        public int $status,
        public array $headerLines,
        public string $body,
        public string $fatalError = '',
        public bool $more = false,
    ) {
    }

    public function encode(): string
    {
        $payload = \pack('nCN', $this->status, $this->more ? 1 : 0, \count($this->headerLines));
        foreach ([...$this->headerLines, $this->fatalError] as $piece) {
            $payload .= \pack('N', \strlen($piece)) . $piece;
        }
        $payload .= $this->body;

        return \pack('J', \strlen($payload)) . $payload;
    }

    /**
     * How many bytes the frame starting $buffer has in all (its length prefix included), or null
     * while fewer than the 8 bytes of the prefix have arrived.
     */
    public static function expectedLength(string $buffer): ?int
    {
        if (\strlen($buffer) < 8) {
            return null;
        }
        $length = \unpack('J', $buffer, 0);

        return 8 + (int) ($length[1] ?? 0);
    }

    /** @throws \UnexpectedValueException for bytes that are not one whole frame */
    public static function decode(string $frame): self
    {
        $length = self::expectedLength($frame);
        if ($length === null || $length !== \strlen($frame) || $length < 8 + self::HEAD) {
            throw new \UnexpectedValueException('An incomplete response frame from the script\'s process');
        }
        $head = \unpack('nstatus/Cmore/Ncount', $frame, 8);
        if ($head === false) {
            throw new \UnexpectedValueException('An unreadable response frame from the script\'s process');
        }
        $offset = 8 + self::HEAD;
        $lines = [];
        for ($i = 0; $i <= $head['count']; $i++) {
            $size = \unpack('N', $frame, $offset);
            $size = (int) ($size[1] ?? -1);
            if ($size < 0 || $offset + 4 + $size > $length) {
                throw new \UnexpectedValueException('A header line runs past the end of the response frame');
            }
            $lines[] = \substr($frame, $offset + 4, $size);
            $offset += 4 + $size;
        }

        $fatalError = (string) \array_pop($lines);

        return new self((int) $head['status'], $lines, \substr($frame, $offset), $fatalError, $head['more'] === 1);
    }
}
