<?php

declare(strict_types=1);

namespace Bobbin\Nats\Internal;

use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Bobbin\Async\CompositeCancellation;
use Bobbin\Async\Future;
use Bobbin\Async\TimeoutCancellation;
use Closure;

/**
 * A wait for a future bounded by a timeout as well as the caller's cancellation: the caller's
 * cancellation comes out as it is, the timeout as the exception the caller names.
 *
 * @internal
 */
final class BoundedWait
{
    private function __construct()
    {
    }

    /**
     * @template T
     * @param Future<T> $future
     * @param Closure(CancelledException): \Throwable $onTimeout
     * @return T
     * @throws CancelledException|\Throwable
     */
    public static function await(Future $future, float $timeout, ?Cancellation $cancellation, Closure $onTimeout, string $timeoutMessage = 'The operation timed out'): mixed
    {
        $limit = new TimeoutCancellation($timeout, $timeoutMessage);
        try {
            return $future->await($cancellation === null ? $limit : new CompositeCancellation($cancellation, $limit));
        } catch (CancelledException $cancelled) {
            if ($cancellation !== null && $cancellation->isRequested()) {
                throw $cancelled;
            }
            throw $onTimeout($cancelled);
        } finally {
            $limit->dispose();
        }
    }
}
