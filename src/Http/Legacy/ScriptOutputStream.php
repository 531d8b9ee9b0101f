<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

use Bobbin\Http\Message\ProducedWhileSent;
use Closure;
use Psr\Http\Message\StreamInterface;

/**
 * The body of a script that called flush() (the isolated legacy mode): what it had output by
 * then, then each further frame its process sends as it comes, until the last. The server
 * writes a body of unknown size a piece at a time (chunked), reading the next piece only once
 * the previous one is written, and a read waits — in the connection's fiber, on the loop — for
 * the process's next frame: what the script flushes reaches the client before the script ends,
 * as under PHP-FPM with nginx's fastcgi_buffering off.
 *
 * @internal made by IsolatedLegacyLoop
 */
final class ScriptOutputStream implements StreamInterface
{
    use ProducedWhileSent;

    private bool $ended = false;
    private bool $closed = false;

    /**
     * @param Closure(): ScriptResponseFrame $next waits for the process's next frame (throws past the deadline, or when it died)
     * @param Closure(?\Throwable, string): void $onEnd once: the error that cut the body short (null at the last frame), and the fatal error the last frame carried
     */
    public function __construct(private string $pending, private readonly Closure $next, private readonly Closure $onEnd)
    {
    }

    public function __destruct()
    {
        // Dropped before its end (the client left): the process is not waited for.
        $this->close();
    }

    public function read(int $length): string
    {
        while ($this->pending === '' && !$this->ended && !$this->closed) {
            try {
                $frame = ($this->next)();
            } catch (\Throwable $error) {
                $this->finish($error, '');

                throw $error;
            }
            $this->pending = $frame->body;
            if (!$frame->more) {
                $this->finish(null, $frame->fatalError);
            }
        }
        $piece = \substr($this->pending, 0, \max(1, $length));
        $this->pending = (string) \substr($this->pending, \strlen($piece));

        return $piece;
    }

    public function eof(): bool
    {
        return $this->pending === '' && ($this->ended || $this->closed);
    }

    public function close(): void
    {
        if (!$this->ended) {
            $this->finish(new \RuntimeException('The response was dropped before the script ended'), '');
        }
        $this->closed = true;
        $this->pending = '';
    }

    public function tell(): int
    {
        throw new \RuntimeException('A script\'s streamed output has no position');
    }

    public function __toString(): string
    {
        try {
            return $this->getContents();
        } catch (\Throwable) {
            return '';
        }
    }

    private function finish(?\Throwable $error, string $fatalError): void
    {
        if ($this->ended) {
            return;
        }
        $this->ended = true;
        ($this->onEnd)($error, $fatalError);
    }
}
