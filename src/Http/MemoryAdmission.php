<?php

declare(strict_types=1);

namespace Bobbin\Http;

use Psr\Log\LoggerInterface;

/**
 * Keeps a worker from dying of its connection count: past a share of memory_limit it takes no
 * more connections unless an idle or slow one can be closed for each (OpenConnections::makeRoom()),
 * so the kernel's listen queue and the other workers take the load. Logged once when it starts
 * and once when it ends, not per connection. Checked per accept, not per request:
 * memory_get_usage() reads a counter, no system call.
 *
 * @internal owned by Server
 */
final class MemoryAdmission
{
    /** The share of memory_limit past which new connections wait: the rest is the requests' headroom. */
    public const SHARE = 0.75;

    private bool $tight = false;

    public function __construct(
        /** Bytes of PHP heap past which no connection is added; INF: no memory_limit. */
        private readonly float $ceiling,
        private readonly LoggerInterface $logger,
    ) {
    }

    public static function fromMemoryLimit(LoggerInterface $logger): self
    {
        $limit = \ini_parse_quantity((string) \ini_get('memory_limit'));

        return new self($limit > 0 ? $limit * self::SHARE : \INF, $logger);
    }

    /** Whether the heap leaves room for another connection; logs a change of that answer. */
    public function allowsMore(): bool
    {
        $used = \memory_get_usage();
        if ($used < $this->ceiling) {
            if ($this->tight) {
                $this->tight = false;
                $this->logger->notice('Memory back under {share}% of memory_limit ({used} bytes used): accepting connections again', [
                    'share' => self::SHARE * 100, 'used' => $used,
                ]);
            }

            return true;
        }
        if (!$this->tight) {
            $this->tight = true;
            $this->logger->warning('{used} bytes of PHP heap, over {share}% of memory_limit: new connections wait in the listen queue (or take the place of idle ones) until memory is freed', [
                'used' => $used, 'share' => self::SHARE * 100,
            ]);
        }

        return false;
    }
}
