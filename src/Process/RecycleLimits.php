<?php

declare(strict_types=1);

namespace Bobbin\Process;

/**
 * When a worker asks to be replaced: after about --max-requests requests (each worker draws its
 * own limit within ±10 %, so workers started together do not all retire together) or once its
 * PHP heap exceeds --max-memory bytes. Zero disables either.
 */
final readonly class RecycleLimits
{
    public const JITTER = 0.1;

    public function __construct(public int $maxRequests = 0, public int $maxMemory = 0)
    {
        if ($maxRequests < 0 || $maxMemory < 0) {
            throw new \InvalidArgumentException('--max-requests and --max-memory must not be negative');
        }
    }

    /** @param (\Closure(int, int): int)|null $random returns an integer in [min, max]; random_int when null */
    public function requestLimitForOneWorker(?\Closure $random = null): int
    {
        if ($this->maxRequests === 0) {
            return 0;
        }
        $spread = (int) \floor($this->maxRequests * self::JITTER);
        $offset = $spread === 0 ? 0 : ($random ?? \random_int(...))(-$spread, $spread);

        return \max(1, $this->maxRequests + $offset);
    }

    public function memoryExceeded(int $bytes): bool
    {
        return $this->maxMemory > 0 && $bytes > $this->maxMemory;
    }
}
