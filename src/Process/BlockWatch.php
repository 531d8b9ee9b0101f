<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Bobbin\Async\LoopHeartbeat;

/**
 * The master's side of --block-stacks (opt-in: the signal cuts a sleep() short): gives each
 * HTTP worker a slot of the shared HeartbeatTable and, on each of its ticks, names the workers
 * whose loop has been running code without waiting for longer than --block-threshold, so the
 * master can signal them (SIGURG) and they log the stack of what holds them (BlockReporter). A long stretch is named again only each time it has
 * doubled (at 0.1, 0.2, 0.4 s…): a second blocking request later in the same stretch is still
 * seen, and code that sleeps is not cut short over and over.
 */
final class BlockWatch
{
    /** The signal that asks a worker for the stack of its blocking code; ignored by default, so harmless to a worker that never installed a handler. */
    public const SIGNAL = \SIGURG;

    /** @var array<int, int> slot by worker pid */
    private array $slotOf = [];
    /** @var array<int, array{int, int}> by pid: the busy-since value last signalled, and how long it had run then (ns) */
    private array $signalled = [];
    private readonly int $thresholdNanoseconds;

    private function __construct(private readonly HeartbeatTable $table, public readonly float $thresholdSeconds)
    {
        $this->thresholdNanoseconds = (int) \round($thresholdSeconds * 1e9);
    }

    /** Null when off (a threshold of 0) or where the shared table cannot be made (no FFI). */
    public static function create(float $thresholdSeconds): ?self
    {
        if ($thresholdSeconds <= 0.0) {
            return null;
        }
        $table = HeartbeatTable::create(512);

        return $table === null ? null : new self($table, $thresholdSeconds);
    }

    /** How often the master should look: a quarter of the threshold, between 10 and 100 ms. */
    public function tickSeconds(): float
    {
        return \max(0.01, \min(0.1, $this->thresholdSeconds / 4));
    }

    /** A free slot for the worker about to be forked; null when all are taken (that worker goes unwatched). */
    public function freeSlot(): ?int
    {
        $taken = \array_flip($this->slotOf);
        for ($slot = 0; $slot < $this->table->size; $slot++) {
            if (!isset($taken[$slot])) {
                $this->table->clear($slot);

                return $slot;
            }
        }

        return null;
    }

    /** The heartbeat the forked worker in $slot installs. */
    public function heartbeat(int $slot): LoopHeartbeat
    {
        return $this->table->heartbeat($slot);
    }

    public function assign(int $pid, int $slot): void
    {
        $this->slotOf[$pid] = $slot;
    }

    /** The worker has exited: its slot is free again (and may hold a stale busy mark, cleared on reuse). */
    public function release(int $pid): void
    {
        unset($this->slotOf[$pid], $this->signalled[$pid]);
    }

    /**
     * The workers whose loop has been busy past the threshold at $now (hrtime ns) and not named
     * since that stretch of busy time doubled.
     *
     * @return list<int> pids
     */
    public function overThreshold(int $now): array
    {
        $over = [];
        foreach ($this->slotOf as $pid => $slot) {
            $since = $this->table->busySince($slot);
            $busy = $now - $since;
            if ($since === 0 || $busy < $this->thresholdNanoseconds) {
                continue;
            }
            [$signalledSince, $signalledAfter] = $this->signalled[$pid] ?? [0, 0];
            if ($signalledSince === $since && $busy < 2 * $signalledAfter) {
                continue;
            }
            $this->signalled[$pid] = [$since, $busy];
            $over[] = $pid;
        }

        return $over;
    }
}
