<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Symfony;

use Bobbin\Http\Message\ProducedWhileSent;
use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\DeferredFuture;
use Bobbin\Async\ErrorReporter;
use Bobbin\Http\Classic\OutputCapture;
use Bobbin\Http\FlushableBody;
use Closure;
use Psr\Http\Message\StreamInterface;

/**
 * The body of a Symfony StreamedResponse (Laravel's response()->stream() and eventStream()
 * too) as the server sends it: at the first read the response's callback starts in a fiber of
 * its own, what it echoes is taken as it is written (OutputCapture::redirect(), per fiber, so
 * concurrent requests' output stays apart) and each read() returns what came since the last
 * one, waiting while there is none. What the callback echoes before it waits (a timer, a query)
 * goes out together: a chunk per wait, not per echo. With FFI (SapiFlushHook) the callback's
 * flush() sends what it echoed so far at once too, without waiting (FlushableBody): the
 * classic loop of echo, flush(), sleep() streams though it never waits on the loop.
 *
 * The client paces the callback only at its waits: what it echoes without waiting, and what a
 * flush() could not send without waiting, is held until it waits or ends (it holds the worker
 * meanwhile anyway). When the client leaves, the request's
 * cancellation fires and the callback's waits that take it throw; its output is dropped from
 * then on. $afterwards (the kernel's terminate(), the gate's release) runs once, in the
 * callback's fiber after it ended, or at close() when the body was never read (a HEAD request,
 * a connection closed before the response).
 *
 * @internal made by HttpFoundationBridge, read by the server
 */
final class StreamedBody implements StreamInterface, FlushableBody
{
    use ProducedWhileSent;

    private string $buffer = '';
    private bool $started = false;
    private bool $ended = false;
    private bool $abandoned = false;
    private ?\Throwable $failure = null;
    private ?DeferredFuture $waiting = null;
    private int $position = 0;
    /** @var (Closure(): void)|null */
    private ?Closure $afterwards = null;
    /** @var (Closure(): void)|null */
    private ?Closure $inProducer = null;
    /** @var (Closure(): void)|null the server's writer, at a flush() (FlushableBody) */
    private ?Closure $sendFlushed = null;

    /** @param Closure(): void $produce echoes the content (the response's sendContent()) */
    public function __construct(private readonly Closure $produce, private readonly ?Cancellation $cancellation)
    {
    }

    /**
     * @param Closure(): void $afterwards runs once the content is done with (see the class comment)
     * @param (Closure(): void)|null $inProducer runs first in the callback's fiber (the per-fiber
     *        context hands the request's state over to it)
     */
    public function afterwards(Closure $afterwards, ?Closure $inProducer = null): void
    {
        $this->afterwards = $afterwards;
        $this->inProducer = $inProducer;
    }

    public function whenFlushed(?Closure $send): void
    {
        $this->sendFlushed = $send;
    }

    public function __destruct()
    {
        $this->close();
    }

    public function __toString(): string
    {
        try {
            return $this->getContents();
        } catch (\Throwable) {
            return '';
        }
    }

    public function close(): void
    {
        $this->abandoned = true;
        $this->buffer = '';
        if (!$this->started) {
            $this->started = $this->ended = true;
            if ($this->afterwards !== null) {
                // Maybe in a destructor: the terminate() that may wait gets a fiber of its own,
                // with the request's state as the callback would have had it.
                Async::run(function (): void {
                    try {
                        if ($this->inProducer !== null) {
                            ($this->inProducer)();
                        }
                    } finally {
                        $this->finish();
                    }
                })->ignore();
            }
        }
    }

    public function tell(): int
    {
        return $this->position;
    }

    public function eof(): bool
    {
        return $this->ended && $this->buffer === '';
    }

    public function read(int $length): string
    {
        if (!$this->started) {
            $this->started = true;
            Async::run($this->runCallback(...))->ignore();
        }
        while ($this->buffer === '' && !$this->ended) {
            $this->waiting = new DeferredFuture();
            try {
                $this->waiting->future()->await($this->cancellation);
            } catch (\Throwable $error) {
                // The client left (the request's cancellation): nothing more goes anywhere.
                $this->abandoned = true;
                $this->buffer = '';
                throw $error;
            } finally {
                $this->waiting = null;
            }
        }
        if ($this->buffer === '') {
            $failure = $this->failure;
            $this->failure = null;
            if ($failure !== null) {
                throw $failure;
            }

            return '';
        }
        $piece = \strlen($this->buffer) <= $length ? $this->buffer : \substr($this->buffer, 0, $length);
        $this->buffer = (string) \substr($this->buffer, \strlen($piece));
        $this->position += \strlen($piece);

        return $piece;
    }

    /** The callback's fiber. */
    private function runCallback(): void
    {
        $captured = OutputCapture::redirect($this->received(...), $this->flushed(...));
        // Outside Bobbin's server (no capture installed): an output buffer of this fiber's own.
        $buffered = $captured === null && \ob_start(function (string $chunk): string {
            $this->received($chunk);

            return '';
        }, 1);
        try {
            if ($this->inProducer !== null) {
                ($this->inProducer)();
            }
            ($this->produce)();
        } catch (\Throwable $error) {
            $this->failure = $error;
        } finally {
            if ($buffered) {
                \ob_end_clean();
            }
            OutputCapture::end($captured);
            $this->ended = true;
            $this->wake();
            $this->finish();
        }
    }

    /** What the callback wrote, as it writes it: inside PHP's output handler, so nothing here waits or echoes. */
    private function received(string $chunk): void
    {
        if ($chunk === '' || $this->abandoned) {
            return;
        }
        $this->buffer .= $chunk;
        $this->wake();
    }

    /**
     * The callback called flush() (inside an FFI callback: nothing here waits or throws). Only
     * while the writer waits in read(): a writer in the middle of a write has bytes of its own
     * on the way, and takes this output after them.
     */
    private function flushed(): void
    {
        if ($this->sendFlushed !== null && $this->waiting !== null && $this->buffer !== '' && !$this->abandoned) {
            ($this->sendFlushed)();
        }
    }

    private function wake(): void
    {
        $waiting = $this->waiting;
        if ($waiting !== null && !$waiting->isComplete()) {
            // The reader continues once the callback waits or ends (a resume is queued, never run here).
            $waiting->complete();
        }
    }

    private function finish(): void
    {
        $afterwards = $this->afterwards;
        $this->afterwards = null;
        if ($afterwards === null) {
            return;
        }
        try {
            $afterwards();
        } catch (\Throwable $error) {
            ErrorReporter::report($error, 'Finishing a streamed response failed');
        }
    }
}
