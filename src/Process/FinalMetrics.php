<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Bobbin\Metrics\Registry;

/**
 * A worker's last metrics, sent to the master as it ends — after a graceful stop (recycled,
 * reloaded, stopped) and from a shutdown function when exit(), die or a fatal error ends it —
 * so the master keeps every request it counted (Metrics\WorkerFamilies) and no total goes
 * backwards. A worker killed by SIGKILL sends nothing: the master keeps what it last answered.
 *
 * The report is a `metrics` message with id 0 (no collect asked for it): absolute figures, so
 * sending it twice counts nothing twice.
 */
final class FinalMetrics
{
    private bool $sent = false;

    public function __construct(private readonly Registry $registry, private readonly WorkerChannel $channel)
    {
    }

    /**
     * After AbruptEndReport's: the requests it answers as the process ends are counted first
     * (and the memory it held back is free again after an exhausted memory_limit).
     */
    public function sendAtShutdown(): void
    {
        ProcessShutdown::register($this->send(...));
    }

    public function send(): void
    {
        if ($this->sent) {
            return;
        }
        $this->sent = true;
        $families = [];
        try {
            foreach ($this->registry->collect() as $family) {
                $families[] = $family->toArray();
            }
        } catch (\Throwable) {
            return; // a collector broken by the way the process ended: the master keeps what it last had
        }
        $this->channel->sendLast(WorkerMessage::metrics(0, $families));
    }
}
