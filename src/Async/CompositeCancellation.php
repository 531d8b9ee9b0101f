<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Closure;

/** Requested as soon as any of its parts is (e.g. "client gone" or "query timeout"). */
final class CompositeCancellation implements Cancellation
{
    /** @var list<Cancellation> */
    private readonly array $parts;

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
        $ids = [];
        foreach ($this->parts as $i => $part) {
            $ids[] = $i . ':' . $part->subscribe($once);
        }

        return \implode(',', $ids);
    }

    public function unsubscribe(string $id): void
    {
        foreach (\explode(',', $id) as $pair) {
            [$index, $partId] = \explode(':', $pair, 2);
            $this->parts[(int) $index]->unsubscribe($partId);
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
