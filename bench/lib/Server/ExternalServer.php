<?php

declare(strict_types=1);

namespace Bobbin\Bench\Server;

use Bobbin\Bench\PeerSpec;

/**
 * A peer server (Swoole, AMPHP, RoadRunner, Workerman…) started by the operator: measured in
 * the same run as ours, never started or stopped here. Its CPU and memory are read from the
 * given process and its descendants; pinning it is the operator's job.
 */
final class ExternalServer implements Server
{
    public function __construct(private readonly PeerSpec $peer)
    {
    }

    public function name(): string
    {
        return $this->peer->name;
    }

    public function baseUrl(): string
    {
        return $this->peer->url;
    }

    public function rootPids(): array
    {
        return [$this->peer->pid];
    }

    public function command(): string
    {
        return \sprintf('(started by the operator; --peer=%s,%s,%d)', $this->peer->name, $this->peer->url, $this->peer->pid);
    }

    public function stop(): void
    {
    }
}
