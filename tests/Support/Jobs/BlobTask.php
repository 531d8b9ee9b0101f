<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Jobs;

use Bobbin\Jobs\Task;

/** Returns $bytes pseudo-random bytes made from $seed, so the caller can make the same ones to compare. */
final class BlobTask implements Task
{
    public function __construct(private readonly int $bytes, private readonly int $seed)
    {
    }

    public static function make(int $bytes, int $seed): string
    {
        $out = '';
        for ($block = 0; \strlen($out) < $bytes; $block++) {
            $out .= \hash('sha256', $seed . ':' . $block, true);
        }

        return \substr($out, 0, $bytes);
    }

    public function run(): string
    {
        return self::make($this->bytes, $this->seed);
    }
}
