<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\Cancellation;
use Bobbin\Async\CancellationSource;
use Closure;

/** A real CancellationSource that also tells how many subscriptions are still live. */
final class SubscriptionCountingCancellation implements Cancellation
{
    private readonly CancellationSource $source;
    /** @var array<string, true> */
    private array $live = [];

    public function __construct()
    {
        $this->source = new CancellationSource();
    }

    public function cancel(): void
    {
        $this->source->cancel();
    }

    public function liveSubscriptions(): int
    {
        return \count($this->live);
    }

    public function subscribe(Closure $callback): string
    {
        $id = $this->source->subscribe($callback);
        $this->live[$id] = true;

        return $id;
    }

    public function unsubscribe(string $id): void
    {
        unset($this->live[$id]);
        $this->source->unsubscribe($id);
    }

    public function isRequested(): bool
    {
        return $this->source->isRequested();
    }

    public function throwIfRequested(): void
    {
        $this->source->throwIfRequested();
    }
}
