<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Closure;
use Revolt\EventLoop;

/**
 * Measures how late a repeating timer fires: the time the loop was busy with something that
 * did not yield. Steady lag of more than a few milliseconds means a blocking call or a CPU-heavy
 * request in the worker.
 */
final class LoopLagGauge
{
    private ?string $timerId = null;
    private float $expected = 0.0;
    private float $lastLag = 0.0;
    private float $maxLag = 0.0;
    private float $totalLag = 0.0;
    private int $samples = 0;

    /**
     * @param float $interval seconds between samples
     * @param float $warnAbove seconds of lag that trigger $onLag
     * @param (Closure(float): mixed)|null $onLag receives the lag in seconds
     * @param (Closure(float): mixed)|null $onSample receives every sample's lag (a histogram)
     */
    public function __construct(
        private readonly float $interval = 0.1,
        private readonly float $warnAbove = 0.05,
        private readonly ?Closure $onLag = null,
        private readonly ?Closure $onSample = null,
    ) {
        if ($interval <= 0.0) {
            throw new \ValueError('The sampling interval must be positive');
        }
    }

    public function start(): void
    {
        if ($this->timerId !== null) {
            return;
        }
        ErrorReporter::installOnLoop();
        $this->expected = \hrtime(true) / 1e9 + $this->interval;
        $this->timerId = EventLoop::unreference(EventLoop::repeat($this->interval, function (): void {
            $now = \hrtime(true) / 1e9;
            $lag = \max(0.0, $now - $this->expected);
            $this->expected = $now + $this->interval;
            $this->lastLag = $lag;
            $this->maxLag = \max($this->maxLag, $lag);
            $this->totalLag += $lag;
            $this->samples++;
            if ($this->onSample !== null) {
                ($this->onSample)($lag);
            }
            if ($this->onLag !== null && $lag > $this->warnAbove) {
                ($this->onLag)($lag);
            }
        }));
    }

    public function stop(): void
    {
        if ($this->timerId !== null) {
            EventLoop::cancel($this->timerId);
            $this->timerId = null;
        }
    }

    public function lastLag(): float
    {
        return $this->lastLag;
    }

    public function maxLag(): float
    {
        return $this->maxLag;
    }

    public function averageLag(): float
    {
        return $this->samples === 0 ? 0.0 : $this->totalLag / $this->samples;
    }

    public function samples(): int
    {
        return $this->samples;
    }
}
