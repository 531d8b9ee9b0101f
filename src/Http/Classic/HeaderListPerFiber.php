<?php

declare(strict_types=1);

namespace Bobbin\Http\Classic;

use Bobbin\Async\FiberLocalState;

/**
 * PHP's header list (header(), setcookie()) is one per process; with requests running
 * concurrently it must follow the fiber that set it: a request that sets a header and then
 * waits takes its headers along, and the requests that run meanwhile start from an empty list.
 *
 * @internal part of the capture of PHP's own response functions
 */
final class HeaderListPerFiber implements FiberLocalState
{
    /** @return list<string>|null */
    public function save(): ?array
    {
        if (!HeaderCapture::$dirty) {
            return null; // the usual wait: nobody called header() since the list was last taken
        }
        $lines = HeaderCapture::take();

        return $lines === [] ? null : $lines;
    }

    public function restore(mixed $saved): void
    {
        if (!\is_array($saved)) {
            return;
        }
        foreach ($saved as $line) {
            \header((string) $line, false);
        }
    }
}
