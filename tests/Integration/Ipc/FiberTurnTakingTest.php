<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Ipc;

use Bobbin\Async\Async;
use Bobbin\Async\DeferredFuture;
use Bobbin\Async\Future;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Tests\Support\Ipc\ByteFrequency;
use Bobbin\Tests\Support\Ipc\Channels;
use Bobbin\Tests\Support\Ipc\DaemonTestCase;
use PHPUnit\Framework\Attributes\DataProvider;

/**
 * A lone caller's answer is often there as soon as its request is out, so its fiber never
 * suspends. Fibers that become runnable together must still share batches rather than queue
 * behind one fiber that sends all its requests alone.
 */
final class FiberTurnTakingTest extends DaemonTestCase
{
    #[DataProvider('channels')]
    public function testFibersReleasedTogetherAfterALoneCallerTakeTurnsRequestByRequest(string $channel): void
    {
        $client = Channels::client($channel, $this->daemon);
        // A single caller first: the connection is on its lone-caller path when the crowd comes.
        for ($i = 0; $i < 50; $i++) {
            $client->request("warm-up $i");
        }
        $go = new DeferredFuture();
        /** @var list<array{int, int}> $completions (fiber, request number) in the order answered */
        $completions = [];
        $futures = [];
        for ($f = 0; $f < 20; $f++) {
            $futures[] = Async::run(static function () use ($client, $go, $f, &$completions): bool {
                $go->future()->await();
                $ok = true;
                for ($i = 0; $i < 5; $i++) {
                    $payload = \pack('NN', $f, $i) . \str_repeat('x', $f);
                    $ok = $ok && $client->request($payload) === ByteFrequency::expected($payload);
                    $completions[] = [$f, $i];
                }

                return $ok;
            });
        }
        Async::delay(0.01); // every fiber waits at the barrier
        $go->complete(null);
        $timeout = new TimeoutCancellation(20.0);
        self::assertSame(\array_fill(0, 20, true), Future::awaitAll($futures, $timeout));
        $timeout->dispose();

        // Taking turns: every fiber has its first answer before any fiber has its third.
        $firstOfAll = [];
        $firstThird = null;
        foreach ($completions as $position => [$f, $i]) {
            if ($i === 0) {
                $firstOfAll[$f] = $position;
            } elseif ($i === 2 && $firstThird === null) {
                $firstThird = $position;
            }
        }
        self::assertCount(20, $firstOfAll);
        self::assertNotNull($firstThird);
        self::assertLessThan($firstThird, \max($firstOfAll), 'one fiber ran ahead with its requests while the others waited');
        $client->close();
    }
}
