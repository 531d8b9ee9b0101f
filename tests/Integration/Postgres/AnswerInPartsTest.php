<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Postgres;

use Bobbin\Async\Async;
use Bobbin\Async\Future;
use Bobbin\Tests\Support\Async\SocketPairs;
use PHPUnit\Framework\Attributes\DataProvider;
use Revolt\EventLoop;

/**
 * Answers that reach the client in several reads: a notice sent ahead of the result, and results
 * far larger than one socket read. Each wake-up must read what arrived and look again before it
 * waits, or a wait can start after the last bytes were already read and never end.
 */
final class AnswerInPartsTest extends PostgresTestCase
{
    use SocketPairs;

    /** @return array<string, array{bool}> */
    public static function waits(): array
    {
        return [
            'waiting inside libpq (nothing else on the loop)' => [false],
            'waiting through the loop (another stream watched)' => [true],
        ];
    }

    #[DataProvider('waits')]
    public function testAResultSentAfterANoticeAndAPauseArrivesWhole(bool $loopBusy): void
    {
        [$quiet, $peer] = self::socketPair();
        $watch = $loopBusy ? EventLoop::onReadable($quiet, static function (): void {
        }) : null;
        $pool = $this->pool(maxSize: 1);
        $pool->query(<<<'SQL'
            CREATE OR REPLACE FUNCTION pg_temp.notice_then_wait(ms int) RETURNS int LANGUAGE plpgsql AS $$
            BEGIN
                RAISE NOTICE 'first part';
                PERFORM pg_sleep(ms / 1000.0);
                RETURN ms;
            END $$
            SQL);
        for ($i = 0; $i < 20; $i++) {
            self::assertSame($i % 5, $pool->queryValue('SELECT pg_temp.notice_then_wait($1)', [$i % 5]));
        }
        $pool->close();
        if ($watch !== null) {
            EventLoop::cancel($watch);
        }
        \fclose($peer);
    }

    public function testLargeResultsArriveWholeInsideManyFibers(): void
    {
        $pool = $this->pool(maxSize: 4);
        $sizes = [1, 70_000, 300_000, 1_000_000, 2_500_000];
        $futures = [];
        foreach ($sizes as $size) {
            for ($copy = 0; $copy < 3; $copy++) {
                $futures[] = Async::run(static fn () => \strlen((string) $pool->queryValue("SELECT repeat('z', \$1)", [$size])));
            }
        }
        $lengths = Future::awaitAll($futures);

        $expected = [];
        foreach ($sizes as $size) {
            \array_push($expected, $size, $size, $size);
        }
        self::assertSame($expected, \array_values($lengths));
        $pool->close();
    }
}
