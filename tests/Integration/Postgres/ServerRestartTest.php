<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Postgres;

use Bobbin\Async\Async;
use Bobbin\Async\Future;
use Bobbin\Postgres\Exception\ConnectException;
use Bobbin\Postgres\Exception\ConnectionLostException;
use Bobbin\Postgres\Exception\PostgresException;

final class ServerRestartTest extends PostgresTestCase
{
    public function testThePoolRecoversFromAServerRestartMidRun(): void
    {
        $pool = $this->pool(maxSize: 10, acquireTimeout: 10.0, connectTimeout: 5.0, queryTimeout: 10.0);
        $pool->queryValue('SELECT 1');
        $restarted = false;
        $errors = [];
        $successesAfterRestart = 0;
        $workers = [];
        for ($i = 0; $i < 30; $i++) {
            $workers[] = Async::run(static function () use ($pool, &$restarted, &$errors, &$successesAfterRestart): void {
                $until = \microtime(true) + 30.0;
                while (\microtime(true) < $until) {
                    try {
                        $pool->queryValue('SELECT pg_sleep(0.01)');
                        if ($restarted) {
                            if (++$successesAfterRestart >= 60) {
                                return;
                            }
                        }
                    } catch (PostgresException $e) {
                        $errors[] = $e;
                        Async::delay(0.05);
                    }
                }
            });
        }
        Async::delay(0.3);
        try {
            // In a child process, so the loop keeps running the workers meanwhile.
            self::runClusterCommand('restart');
        } finally {
            self::runClusterCommand('start');
        }
        $restarted = true;
        Future::awaitAll($workers);

        self::assertGreaterThanOrEqual(60, $successesAfterRestart, 'queries succeed again after the restart');
        self::assertNotEmpty($errors, 'callers saw the restart');
        foreach ($errors as $error) {
            self::assertTrue(
                $error instanceof ConnectionLostException || $error instanceof ConnectException,
                'unexpected ' . $error::class . ': ' . $error->getMessage(),
            );
        }
        $stats = $pool->statistics();
        self::assertLessThanOrEqual(10, $stats->open);
        self::assertSame($stats->open, $stats->idle, 'no connection leaked');
        self::assertSame(1, $pool->queryValue('SELECT 1'));
    }

    public function testAStoppedServerGivesConnectErrorsFastAndNothingHangs(): void
    {
        $pool = $this->pool(maxSize: 2, connectTimeout: 2.0);
        $pool->queryValue('SELECT 1');
        try {
            self::runClusterCommand('stop');
            $started = \microtime(true);
            $errors = 0;
            for ($i = 0; $i < 3; $i++) {
                try {
                    $pool->queryValue('SELECT 1');
                } catch (ConnectionLostException|ConnectException) {
                    $errors++;
                }
            }
            self::assertSame(3, $errors);
            self::assertLessThan(5.0, \microtime(true) - $started);
        } finally {
            self::runClusterCommand('start');
        }

        self::assertSame(1, $pool->queryValue('SELECT 1'));
    }
}
