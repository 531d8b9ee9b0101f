<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Redis;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Future;
use Bobbin\Redis\Client;
use Bobbin\Redis\ClientConfig;
use Bobbin\Redis\Connection;
use Bobbin\Redis\Exception\CommandTimeoutException;
use Bobbin\Tests\Support\Redis\EmbeddedRedis;
use PHPUnit\Framework\TestCase;

/**
 * The bug class of issue 25: a cancelled command's reply handed to the next caller. Many fibers
 * share one pipelined connection and a thousand of their commands are cancelled at random points
 * (before sending, while queued for the tick's write, in flight); every reply must reach its own
 * caller.
 */
final class PipelinedCancellationTest extends TestCase
{
    public function testEveryReplyReachesItsOwnCallerThroughAThousandRandomCancellations(): void
    {
        $connection = Connection::connect(EmbeddedRedis::url());
        $fibers = 100;
        $commands = 1_000;
        \mt_srand(25);
        $cancelAt = [];
        while (\count($cancelAt) < 1_000) {
            $cancelAt[\mt_rand(0, $fibers - 1) * $commands + \mt_rand(0, $commands - 1)] = \mt_rand(0, 3);
        }
        $wrong = [];
        $answered = 0;
        $cancelled = 0;
        $tasks = [];
        for ($f = 0; $f < $fibers; $f++) {
            $tasks[] = Async::run(function () use ($f, $commands, $connection, $cancelAt, &$wrong, &$answered, &$cancelled): void {
                for ($i = 0; $i < $commands; $i++) {
                    $payload = "f$f-c$i-" . \str_repeat('x', ($f * 7 + $i) % 50);
                    $how = $cancelAt[$f * $commands + $i] ?? null;
                    $source = null;
                    if ($how !== null) {
                        $source = new CancellationSource();
                        match ($how) {
                            0 => $source->cancel(), // before anything is sent
                            1 => Async::defer(static fn () => $source->cancel()), // queued, before the tick's write
                            2 => Async::run(static fn () => $source->cancel()), // in flight, a tick later
                            default => Async::run(static function () use ($source): void {
                                Async::delay(\mt_rand(0, 300) / 1e6);
                                $source->cancel();
                            }),
                        };
                    }
                    try {
                        $reply = $connection->command('ECHO', $payload, ...($source === null ? [] : [$source]));
                    } catch (CancelledException) {
                        $cancelled++;
                        continue;
                    }
                    $answered++;
                    if ($reply !== $payload) {
                        $wrong[] = [$payload, $reply];
                    }
                }
            });
        }
        Future::awaitAll($tasks);

        self::assertSame([], \array_slice($wrong, 0, 5), \count($wrong) . ' replies reached the wrong caller');
        self::assertSame($fibers * $commands, $answered + $cancelled);
        self::assertGreaterThan(500, $cancelled, 'most of the cancellations landed before the reply');
        self::assertSame('after', $connection->command('ECHO', 'after'));
        self::assertSame(0, $connection->inFlight());
        self::assertFalse($connection->isClosed());
    }

    public function testATimedOutCommandsLateReplyIsDroppedAndTheNextCommandGetsItsOwn(): void
    {
        $client = new Client(ClientConfig::fromUrl(EmbeddedRedis::url(), commandTimeout: 0.2));
        $slow = Async::run(static fn () => $client->eval("local t = redis.call('TIME'); while true do local n = redis.call('TIME'); if (n[1] - t[1]) * 1000000 + (n[2] - t[2]) > 400000 then return 'slow' end end"));
        try {
            $slow->await();
            self::fail('no timeout');
        } catch (CommandTimeoutException $e) {
            self::assertStringContainsString('did not answer within the command timeout of 0.200 s', $e->getMessage());
        }
        Async::delay(0.3);

        self::assertSame('mine', $client->command('ECHO', 'mine'));
        self::assertSame(0, $client->sharedConnection()->inFlight());
    }

    /**
     * A command cancelled in the tick it was queued in is taken back before the tick's write
     * (the client contract: it never reaches the server). Replies are matched by position, so the
     * very entry must go: here an identical INCR is queued before it, with another command
     * between them, and taking that one instead would hand the ECHO's reply to the first INCR.
     */
    public function testTheCommandTakenBackBeforeTheWriteIsTheCancelledOneEvenBehindAnIdenticalOne(): void
    {
        $connection = Connection::connect(EmbeddedRedis::url());
        $key = 'withdrawn:' . \bin2hex(\random_bytes(4));
        // In flight meanwhile, so that the commands below wait for the tick's write together.
        $busy = Async::run(static fn () => $connection->command('EVAL', "local t = redis.call('TIME') repeat local n = redis.call('TIME') until (n[1] - t[1]) * 1000000 + n[2] - t[2] > 50000 return 'busy'", '0'));
        $source = new CancellationSource();
        $first = Async::run(static fn () => $connection->command('INCR', $key));
        $between = Async::run(static fn () => $connection->command('ECHO', 'between'));
        $cancelled = Async::run(static fn () => $connection->command('INCR', $key, $source));
        Async::run(static fn () => $source->cancel(new CancelledException('taken back')));

        try {
            $cancelled->await();
            self::fail('The cancelled command must raise its cancellation');
        } catch (CancelledException $e) {
            self::assertSame('taken back', $e->getMessage());
        }
        self::assertSame('busy', $busy->await());
        self::assertSame(1, $first->await());
        self::assertSame('between', $between->await());
        self::assertSame('1', $connection->command('GET', $key), 'the cancelled INCR ran');
        self::assertSame('after', $connection->command('ECHO', 'after'));
        self::assertSame(0, $connection->inFlight());
        $connection->command('DEL', $key);
    }
}
