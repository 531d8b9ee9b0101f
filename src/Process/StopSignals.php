<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Bobbin\Async\Signals;
use Closure;

/**
 * SIGTERM and SIGINT for a process that serves in itself (an HTTP worker, `serve
 * --single-process`, a `jobs-worker`): the first one drains, a later one aborts — one Ctrl-C
 * is a graceful stop, a second one the impatient operator's "now". Written once for the three.
 */
final class StopSignals
{
    /** @var list<string> */
    private array $ids;
    private bool $draining = false;

    /**
     * @param Closure(int): void $drain the graceful stop, given the signal
     * @param ?Closure(int): void $abort the stop at once; null: a later signal is ignored (the drain is all there is)
     * @param ?Closure(): bool $stopping whether a stop has begun some other way (then the first signal aborts)
     */
    public function __construct(
        private readonly Closure $drain,
        private readonly ?Closure $abort = null,
        private readonly ?Closure $stopping = null,
    ) {
        $handler = $this->received(...);
        $this->ids = [Signals::on(\SIGTERM, $handler), Signals::on(\SIGINT, $handler)];
    }

    /** The handlers go (the process stops on its own from here). */
    public function remove(): void
    {
        foreach ($this->ids as $id) {
            Signals::off($id);
        }
        $this->ids = [];
    }

    private function received(int $signal): void
    {
        $stopping = $this->draining || ($this->stopping !== null && ($this->stopping)());
        if (!$stopping) {
            $this->draining = true;
            ($this->drain)($signal);

            return;
        }
        if ($this->abort !== null) {
            ($this->abort)($signal);
        }
    }
}
