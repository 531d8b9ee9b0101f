<?php

declare(strict_types=1);

namespace Bobbin\Http\Message;

use Closure;
use Psr\Http\Message\StreamInterface;

/**
 * A response body produced while it is sent: each string the generator yields goes to the client
 * when it is yielded (Bobbin's server sends a body of unknown size chunked, its head first), and
 * the generator is resumed for the next one only after the client took the previous one, so a
 * slow client paces it instead of filling the server's memory.
 *
 * The generator runs in the request's fiber as the server reads the body: it may wait between
 * yields (Async::delay(), a query, a channel) without holding up the worker's other requests.
 * Give those waits the request's cancellation (RequestCancellation::of()): when the client goes
 * away mid-stream it fires, the wait throws CancelledException, and the generator ends; a
 * generator parked at a yield is simply not resumed, and its `finally` blocks run when the
 * stream is closed or dropped.
 *
 *     return new Response(200, ['Content-Type' => 'text/plain'], new GeneratorStream(function () {
 *         foreach ($rows as $row) { yield $row . "\n"; }
 *     }));
 *
 * Empty strings are skipped. Read-only, not seekable, size unknown; under PHP-FPM
 * (SapiRunner) the same body is echoed and flushed piece by piece.
 */
final class GeneratorStream implements StreamInterface
{
    use ProducedWhileSent;

    private ?\Generator $generator = null;
    /** @var (Closure(): iterable<mixed>)|null what makes the generator, until the first read */
    private ?Closure $source;
    private bool $started = false;
    private bool $ended = false;
    /** What the last yield gave beyond the length a read() asked for. */
    private string $buffer = '';
    private int $position = 0;

    /**
     * @param iterable<mixed>|(Closure(): iterable<mixed>) $source strings (or Stringable); a closure
     *        is called at the first read, so a generator function's code starts when the body is sent
     */
    public function __construct(iterable|Closure $source)
    {
        $this->source = $source instanceof Closure ? $source : static fn (): iterable => $source;
    }

    public function __toString(): string
    {
        try {
            return $this->getContents();
        } catch (\RuntimeException) {
            return '';
        }
    }

    public function close(): void
    {
        // Dropping a suspended generator runs its `finally` blocks: what it holds is released now.
        $this->generator = null;
        $this->source = null;
        $this->ended = true;
        $this->buffer = '';
    }

    public function tell(): int
    {
        return $this->position;
    }

    public function eof(): bool
    {
        return $this->ended && $this->buffer === '';
    }

    /** The next piece the generator yields (up to $length bytes of it); '' once it has ended. */
    public function read(int $length): string
    {
        if ($length < 1) {
            throw new \RuntimeException('A read needs a length of at least one byte');
        }
        if ($this->buffer === '') {
            $this->buffer = $this->next();
        }
        $piece = \strlen($this->buffer) <= $length ? $this->buffer : \substr($this->buffer, 0, $length);
        $this->buffer = (string) \substr($this->buffer, \strlen($piece));
        $this->position += \strlen($piece);

        return $piece;
    }

    private function next(): string
    {
        if ($this->ended) {
            return '';
        }
        $generator = $this->generator ??= $this->start();
        if ($this->started) {
            $generator->next();
        }
        $this->started = true;
        while ($generator->valid()) {
            $chunk = $generator->current();
            if (!\is_string($chunk) && !$chunk instanceof \Stringable) {
                $this->close();
                throw new \UnexpectedValueException(\sprintf('A GeneratorStream\'s generator yielded %s, not a string', \get_debug_type($chunk)));
            }
            $chunk = (string) $chunk;
            if ($chunk !== '') {
                return $chunk;
            }
            $generator->next();
        }
        $this->generator = null;
        $this->ended = true;

        return '';
    }

    private function start(): \Generator
    {
        $source = $this->source;
        if ($source === null) {
            throw new \RuntimeException('The GeneratorStream was closed');
        }
        $this->source = null;
        $items = $source();

        return $items instanceof \Generator ? $items : (static fn (): \Generator => yield from $items)();
    }
}
