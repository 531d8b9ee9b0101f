<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\Legacy;

use Bobbin\Http\Legacy\RealpathCacheWarmer;
use PHPUnit\Framework\TestCase;

final class RealpathCacheWarmerTest extends TestCase
{
    public function testEachWarmingGivesTheEntriesAWholeTimeToLiveAgain(): void
    {
        $directory = \sys_get_temp_dir() . '/bobbin-realpath-warm-' . \bin2hex(\random_bytes(4));
        \mkdir($directory . '/lib', 0o777, true);
        \touch($directory . '/lib/a.php');
        $file = (string) \realpath($directory . '/lib/a.php');
        try {
            self::assertSame(2, RealpathCacheWarmer::warm($directory));
            $first = \realpath_cache_get()[$file]['expires'] ?? null;
            \usleep(1_100_000);
            RealpathCacheWarmer::warm($directory);
            $second = \realpath_cache_get()[$file]['expires'] ?? null;

            // PHP renews no entry it finds: kept from the first warming, it would expire in a
            // child as if never warmed again.
            self::assertIsInt($first);
            self::assertGreaterThan($first, $second);
            self::assertGreaterThanOrEqual(\time() + (int) \ini_get('realpath_cache_ttl') - 1, $second);
        } finally {
            \exec('rm -rf ' . \escapeshellarg($directory));
        }
    }
}
