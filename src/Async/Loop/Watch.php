<?php

declare(strict_types=1);

namespace Bobbin\Async\Loop;

use Revolt\EventLoop\CallbackType;

/**
 * One callback registered with BobbinDriver: what it waits for and its current state.
 *
 * @internal
 */
final class Watch
{
    public bool $enabled = true;
    public bool $referenced = true;
    /**
     * Set when the event was seen (a poll, an expired timer, a signal) and cleared by disable(),
     * so a callback disabled and enabled again in one tick waits for its next event.
     *
     * @var bool
     */
    public $invokable = false;
    public float $expiration = 0.0;
    /** Position in the TimerHeap, -1 when not in it. */
    public int $heapIndex = -1;
    /** Insertion order in the TimerHeap, so timers due at the same time fire in order. */
    public int $heapSequence = 0;

    /**
     * @param resource|null $stream
     * @param int $key the stream's resource id ((int) $stream), -1 without a stream
     */
    public function __construct(
        public readonly string $id,
        public readonly CallbackType $type,
        public readonly \Closure $closure,
        public readonly mixed $stream = null,
        public readonly int $key = -1,
        public readonly int $signal = 0,
        public readonly float $interval = 0.0,
    ) {
    }
}
