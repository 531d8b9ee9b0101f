<?php

declare(strict_types=1);

namespace Bobbin\Http\Classic;

/**
 * What one request echoed (OutputCapture), or where it goes as it is written (a sink).
 *
 * @internal part of the capture of PHP's own response functions
 */
final class CapturedOutput
{
    public string $contents = '';

    /**
     * @param (\Closure(string): void)|null $sink takes each write instead of $contents; it runs
     *        inside PHP's output handler, so it must not echo, wait or throw
     * @param (\Closure(): void)|null $onFlush runs when the fiber calls flush() (SapiFlushHook),
     *        inside an FFI callback: it must not echo, wait or throw either
     */
    public function __construct(public readonly ?\Closure $sink = null, public readonly ?\Closure $onFlush = null)
    {
    }

    /** What was written since the last take(). */
    public function take(): string
    {
        $contents = $this->contents;
        $this->contents = '';

        return $contents;
    }
}
