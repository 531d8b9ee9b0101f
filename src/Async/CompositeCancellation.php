<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Closure;

/** Requested as soon as any of its parts is (e.g. "client gone" or "query timeout"). */
final class CompositeCancellation implements Cancellation
{
    /** @var list<Cancellation> */
    private readonly array $parts;
    /**
     * The parts' own ids per subscription, kept here rather than encoded in the returned id so
     * that composites nest (a part may itself be a composite with ids of any shape).
     *
     * @var array<array-key, list<string>>
     */
    private array $subscriptions = [];
    private int $nextId = 0;

    public function __construct(Cancellation ...$parts)
    {
        $this->parts = \array_values($parts);
    }

    public function subscribe(Closure $callback): string
    {
        $fired = false;
        $once = static function (CancelledException $e) use ($callback, &$fired): void {
            if (!$fired) {
                $fired = true;
                $callback($e);
            }
        };
        $partIds = [];
        foreach ($this->parts as $part) {
            $partIds[] = $part->subscribe($once);
        }
        $id = (string) $this->nextId++;
        $this->subscriptions[$id] = $partIds;

        return $id;
    }

    public function unsubscribe(string $id): void
    {
        $partIds = $this->subscriptions[$id] ?? null;
        if ($partIds === null) {
            return;
        }
        unset($this->subscriptions[$id]);
        foreach ($partIds as $index => $partId) {
            $this->parts[$index]->unsubscribe($partId);
        }
    }

    public function isRequested(): bool
    {
        foreach ($this->parts as $part) {
            if ($part->isRequested()) {
                return true;
            }
        }

        return false;
    }

    public function throwIfRequested(): void
    {
        foreach ($this->parts as $part) {
            $part->throwIfRequested();
        }
    }
}
