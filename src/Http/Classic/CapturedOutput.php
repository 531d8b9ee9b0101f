<?php

declare(strict_types=1);

namespace Bobbin\Http\Classic;

/**
 * What one request echoed (OutputCapture).
 *
 * @internal part of the capture of PHP's own response functions
 */
final class CapturedOutput
{
    public string $contents = '';

    /** What was written since the last take(). */
    public function take(): string
    {
        $contents = $this->contents;
        $this->contents = '';

        return $contents;
    }
}
