<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Redis;

use Bobbin\Tests\Support\Redis\EmbeddedRedis;
use PHPUnit\Framework\TestCase;

/** The same client outside any fiber (a script, PHP-FPM): every call drives the loop until its reply is in. */
final class PlainScriptTest extends TestCase
{
    public function testAPlainScriptUsesTheClientWithoutAFiberAndEnds(): void
    {
        $script = <<<'PHP'
            <?php
            require $argv[1] . '/vendor/autoload.php';
            Bobbin\Async\Async::installLoopDriver();
            $redis = new Bobbin\Redis\Client(Bobbin\Redis\ClientConfig::fromUrl($argv[2], cacheSize: 10));
            $k = 'script:' . bin2hex(random_bytes(4));
            $redis->set($k, 'a');
            echo $redis->get($k), $redis->get($k), "\n";
            echo implode(',', $redis->transaction(fn ($tx) => $tx->queue('INCR', $k . ':n'), [$k])), "\n";
            $redis->rPush($k . ':q', ['job']);
            echo implode(',', $redis->blPop([$k . ':q'], 1)), "\n";
            $subscriber = $redis->subscribe([$k . ':ch']);
            $redis->publish($k . ':ch', 'hi');
            echo $subscriber->receive()->payload, "\n";
            $subscriber->close();
            echo "done\n";
            PHP;
        $file = \tempnam(\sys_get_temp_dir(), 'redis-script');
        \file_put_contents($file, $script);
        $output = [];
        $started = \microtime(true);
        \exec(\sprintf('timeout 20 %s %s %s %s 2>&1', \PHP_BINARY, \escapeshellarg($file), \escapeshellarg(\dirname(__DIR__, 3)), \escapeshellarg(EmbeddedRedis::url())), $output, $status);
        \unlink($file);

        self::assertSame(0, $status, \implode("\n", $output));
        self::assertMatchesRegularExpression('/^aa\n1\nscript:[0-9a-f]+:q,job\nhi\ndone$/', \implode("\n", $output));
        self::assertLessThan(5.0, \microtime(true) - $started, 'the script ends: nothing keeps its loop alive');
    }
}
