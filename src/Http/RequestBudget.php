<?php

declare(strict_types=1);

namespace Bobbin\Http;

use Closure;

/**
 * Counts the requests one server has started, and calls a callback once when a limit is
 * reached (a worker retiring after --max-requests).
 *
 * @internal shared by Server and its connections
 */
final class RequestBudget
{
    /** @var int untyped: counted per request (docs/ASYNC.md, Rules) */
    private $started = 0;
    private int $limit = \PHP_INT_MAX;
    /** @var (Closure(): void)|null */
    private ?Closure $onReached = null;

    public function started(): int
    {
        return $this->started;
    }

    /** Called by a connection for every request it starts handling. */
    public function requestStarted(): void
    {
        if (++$this->started >= $this->limit) {
            $this->reached();
        }
    }

    /** @param Closure(): void $onReached */
    public function limitTo(int $requests, Closure $onReached): void
    {
        $this->limit = \max(1, $requests);
        $this->onReached = $onReached;
        if ($this->started >= $this->limit) {
            $this->reached();
        }
    }

    private function reached(): void
    {
        $callback = $this->onReached;
        $this->onReached = null;
        $this->limit = \PHP_INT_MAX;
        if ($callback !== null) {
            $callback();
        }
    }
}
