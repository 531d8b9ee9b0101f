<?php

declare(strict_types=1);

namespace Bobbin\Async\Loop;

/**
 * A binary min-heap of timer watches by expiration. Each watch knows its index, so a cancelled
 * timer leaves the heap at once (O(log n)) instead of lingering until it would have fired: a
 * server arms and cancels a timeout per request, most of which never fire.
 *
 * @internal
 */
final class TimerHeap
{
    /** @var array<int, Watch> indexes 0..n-1 */
    private array $heap = [];
    private int $sequence = 0;

    public function insert(Watch $watch): void
    {
        $index = \count($this->heap);
        $watch->heapIndex = $index;
        $watch->heapSequence = ++$this->sequence;
        $this->heap[] = $watch;
        $this->moveUp($index);
    }

    public function remove(Watch $watch): void
    {
        $index = $watch->heapIndex;
        if ($index < 0) {
            return;
        }
        $watch->heapIndex = -1;
        $last = \array_pop($this->heap);
        if ($last === $watch) {
            return;
        }
        \assert($last !== null);
        $this->heap[$index] = $last;
        $last->heapIndex = $index;
        $this->moveDown($index);
        $this->moveUp($last->heapIndex);
    }

    /** The earliest expiration, or null without timers. */
    public function peek(): ?float
    {
        return isset($this->heap[0]) ? $this->heap[0]->expiration : null;
    }

    /** Removes and returns the earliest timer if it is due at $now. */
    public function extract(float $now): ?Watch
    {
        $top = $this->heap[0] ?? null;
        if ($top === null || $top->expiration > $now) {
            return null;
        }
        $this->remove($top);

        return $top;
    }

    private function moveUp(int $index): void
    {
        $heap = &$this->heap;
        $watch = $heap[$index];
        while ($index > 0) {
            $parentIndex = ($index - 1) >> 1;
            $parent = $heap[$parentIndex];
            if (!self::before($watch, $parent)) {
                break;
            }
            $heap[$index] = $parent;
            $parent->heapIndex = $index;
            $index = $parentIndex;
        }
        $heap[$index] = $watch;
        $watch->heapIndex = $index;
    }

    private function moveDown(int $index): void
    {
        $heap = &$this->heap;
        $count = \count($heap);
        $watch = $heap[$index];
        while (true) {
            $child = 2 * $index + 1;
            if ($child >= $count) {
                break;
            }
            if ($child + 1 < $count && self::before($heap[$child + 1], $heap[$child])) {
                $child++;
            }
            if (!self::before($heap[$child], $watch)) {
                break;
            }
            $heap[$index] = $heap[$child];
            $heap[$index]->heapIndex = $index;
            $index = $child;
        }
        $heap[$index] = $watch;
        $watch->heapIndex = $index;
    }

    private static function before(Watch $a, Watch $b): bool
    {
        return $a->expiration < $b->expiration
            || ($a->expiration === $b->expiration && $a->heapSequence < $b->heapSequence);
    }
}
