<?php

declare(strict_types=1);

namespace Bobbin\Frameworks;

/**
 * How many requests of one worker an application may have in hand at once.
 *
 * OneAtATime is the framework adapters' default, as under RoadRunner, FrankenPHP and Octane:
 * a framework keeps the current request, user and session in long-lived services, so a second
 * request let in while the first waits would see the first one's. The worker's other work (the
 * server, Bobbin's own I/O, requests queued at the gate) goes on meanwhile. Concurrent is for
 * applications that keep request state in the request only (docs/FRAMEWORKS.md).
 */
enum Concurrency: string
{
    case OneAtATime = 'one';
    case Concurrent = 'concurrent';

    /** BOBBIN_CONCURRENCY=one|concurrent, else $default. */
    public static function fromEnvironment(self $default = self::OneAtATime): self
    {
        $value = \getenv('BOBBIN_CONCURRENCY');
        if ($value === false || $value === '') {
            return $default;
        }

        return self::tryFrom($value) ?? throw new \InvalidArgumentException(\sprintf(
            'BOBBIN_CONCURRENCY=%s: expected "one" or "concurrent"',
            $value,
        ));
    }
}
