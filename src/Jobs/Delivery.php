<?php

declare(strict_types=1);

namespace Bobbin\Jobs;

/**
 * Which delivery of a durable task is running (set around DurableTask::run() by a NATS job
 * worker; null elsewhere): attempt 2 and more mean an earlier run may have done part or all of
 * the work before its worker died.
 */
final class Delivery
{
    private static ?self $current = null;

    public function __construct(public readonly string $idempotencyKey, public readonly int $attempt)
    {
    }

    /** The delivery of the durable task running now in this process, null outside one. */
    public static function current(): ?self
    {
        return self::$current;
    }

    public function isRedelivery(): bool
    {
        return $this->attempt > 1;
    }

    /**
     * @internal set by the job worker around one run
     * @template T
     * @param \Closure(): T $run
     * @return T
     */
    public static function during(self $delivery, \Closure $run): mixed
    {
        self::$current = $delivery;
        try {
            return $run();
        } finally {
            self::$current = null;
        }
    }
}
