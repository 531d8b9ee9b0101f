<?php

declare(strict_types=1);

namespace Bobbin\Leaks;

use Bobbin\Async\Async;
use Bobbin\Pool\PoolMetrics;

/**
 * What one request can leave behind for the next, as it stands at one moment: the application's
 * static properties, globals, ini settings, timezone, locale, output buffers, the loop's
 * callbacks, and each database pool's connections in use and returned inside a transaction.
 */
final readonly class ProcessState
{
    /**
     * @param array<string, string> $statics "Class::$property" => fingerprint
     * @param array<string, string> $globals name => fingerprint
     * @param array<string, string|null> $ini name => local value
     * @param array<string, string> $callbacks id => where its code was written
     * @param array<string, array{int, int}> $pools name => [in use, returned inside a transaction]
     */
    public function __construct(
        public array $statics,
        public array $globals,
        public array $ini,
        public string $timezone,
        public string $locale,
        public int $outputBuffers,
        public array $callbacks,
        public array $pools,
    ) {
    }

    public static function capture(ApplicationStatics $statics): self
    {
        $globals = [];
        foreach ($GLOBALS as $name => $value) {
            if ($name !== 'GLOBALS' && ($name === '' || $name[0] !== '_')) {
                $globals[(string) $name] = Fingerprint::of($value);
            }
        }
        $ini = [];
        foreach ((array) \ini_get_all(null, false) as $name => $value) {
            $ini[(string) $name] = \is_string($value) ? $value : null;
        }
        $pools = [];
        foreach (PoolMetrics::shared()->pools() as $name => $pool) {
            $s = $pool->statistics();
            $pools[$name] = [$s->inUse, $s->returnedInTransaction];
        }

        return new self(
            $statics->fingerprints(),
            $globals,
            $ini,
            \date_default_timezone_get(),
            (string) \setlocale(\LC_ALL, '0'),
            \ob_get_level(),
            Async::loopCallbacks(),
            $pools,
        );
    }
}
