<?php

declare(strict_types=1);

namespace Bobbin\Bench;

/**
 * One status line on stderr: which experiment, what it is doing, time elapsed and an estimate
 * of the time left (from each experiment's own estimate).
 */
final class Progress
{
    private readonly float $startedAt;
    private float $plannedSeconds = 0.0;
    private float $finishedPlanSeconds = 0.0;
    private float $currentPlanSeconds = 0.0;
    private float $currentStartedAt = 0.0;
    private string $experiment = '';
    private readonly bool $isTerminal;

    /** @param resource $stream */
    public function __construct(private $stream)
    {
        $this->startedAt = \microtime(true);
        $this->isTerminal = \stream_isatty($stream);
    }

    public function plan(float $seconds): void
    {
        $this->plannedSeconds = $seconds;
    }

    public function beginExperiment(string $name, float $estimatedSeconds): void
    {
        $this->experiment = $name;
        $this->currentPlanSeconds = $estimatedSeconds;
        $this->currentStartedAt = \microtime(true);
        $this->status('starting');
    }

    public function endExperiment(): void
    {
        $this->finishedPlanSeconds += $this->currentPlanSeconds;
        $this->currentPlanSeconds = 0.0;
        $this->status('done');
        if ($this->isTerminal) {
            \fwrite($this->stream, "\n");
        }
    }

    public function status(string $what): void
    {
        $now = \microtime(true);
        $elapsed = $now - $this->startedAt;
        $inCurrent = \min($now - $this->currentStartedAt, $this->currentPlanSeconds);
        $left = \max(0.0, $this->plannedSeconds - $this->finishedPlanSeconds - $inCurrent);
        $line = \sprintf('[bench %s elapsed, ~%s left] %s: %s', self::clock($elapsed), self::clock($left), $this->experiment, $what);
        \fwrite($this->stream, $this->isTerminal ? "\r\033[K" . $line : $line . "\n");
    }

    public function note(string $message): void
    {
        \fwrite($this->stream, ($this->isTerminal ? "\r\033[K" : '') . '[bench] ' . $message . "\n");
    }

    private static function clock(float $seconds): string
    {
        $s = (int) \round($seconds);

        return \sprintf('%02d:%02d', \intdiv($s, 60), $s % 60);
    }
}
