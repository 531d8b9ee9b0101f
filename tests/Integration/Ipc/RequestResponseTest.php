<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Ipc;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Future;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Ipc\ConnectionLostException;
use Bobbin\Tests\Support\Ipc\ByteFrequency;
use Bobbin\Tests\Support\Ipc\Channels;
use Bobbin\Tests\Support\Ipc\DaemonTestCase;
use PHPUnit\Framework\Attributes\DataProvider;

final class RequestResponseTest extends DaemonTestCase
{
    #[DataProvider('channels')]
    public function testABlockingScriptGetsTheByteFrequencyAnswerForEverySize(string $channel): void
    {
        $client = Channels::client($channel, $this->daemon);
        foreach ([0, 1, 7, 8, 9, 128, 2047, 2048, 4096, 100_000] as $size) {
            $payload = ($size > 0 ? \random_bytes($size) : '');
            self::assertSame(ByteFrequency::expected($payload), $client->request($payload), "size $size");
        }
        $client->close();
    }

    #[DataProvider('channels')]
    public function testManyFibersShareOneConnectionAndEachGetsItsOwnAnswer(string $channel): void
    {
        $client = Channels::client($channel, $this->daemon);
        $futures = [];
        for ($fiber = 0; $fiber < 200; $fiber++) {
            $futures[] = Async::run(static function () use ($client, $fiber): int {
                $ok = 0;
                for ($i = 0; $i < 20; $i++) {
                    // A payload unique to this fiber and round: a mixed-up answer would differ.
                    $payload = \str_repeat(\chr($fiber % 256), 8 + $i * 8) . \pack('N', $fiber) . \str_repeat("\xAB", $fiber % 50);
                    if ($client->request($payload) === ByteFrequency::expected($payload)) {
                        $ok++;
                    }
                }

                return $ok;
            });
        }
        $timeout = new TimeoutCancellation(30.0);
        self::assertSame(\array_fill(0, 200, 20), Future::awaitAll($futures, $timeout));
        $timeout->dispose();
        $client->close();
    }

    #[DataProvider('channels')]
    public function testACancelledRequestLeavesTheOthersOnTheConnectionIntact(string $channel): void
    {
        $client = Channels::client($channel, $this->daemon);
        $client->request('warm up');
        $this->daemon->signal(\SIGSTOP); // nothing is answered until SIGCONT
        $source = new CancellationSource();
        $cancelled = Async::run(static fn () => $client->request('cancel me please', $source->token()));
        $others = [];
        for ($i = 0; $i < 5; $i++) {
            $others[] = Async::run(static fn () => $client->request(\str_repeat('x', 64 + $i)));
        }
        Async::delay(0.05);
        $source->cancel();
        try {
            $cancelled->await();
            self::fail('The cancelled request returned');
        } catch (CancelledException) {
        }
        $this->daemon->signal(\SIGCONT);
        $timeout = new TimeoutCancellation(10.0);
        $answers = Future::awaitAll($others, $timeout);
        $timeout->dispose();
        foreach ($answers as $i => $answer) {
            self::assertSame(ByteFrequency::expected(\str_repeat('x', 64 + $i)), $answer);
        }
        self::assertSame(ByteFrequency::expected('after'), $client->request('after'));
        $client->close();
    }

    #[DataProvider('channels')]
    public function testARequestAfterCloseOpensANewConnection(string $channel): void
    {
        $client = Channels::client($channel, $this->daemon);
        self::assertSame(ByteFrequency::expected('first'), $client->request('first'));
        $client->close();
        self::assertSame(ByteFrequency::expected('second one'), $client->request('second one'));
        $client->close();
    }

    #[DataProvider('channels')]
    public function testAFiberClosingTheClientFailsOnlyTheRequestsInFlightAndLaterOnesReconnect(string $channel): void
    {
        // Fibers answered in a batch run one after another inside the reader's turn: one of
        // them closing the connection must not upset the others' answers or the reader.
        $client = Channels::client($channel, $this->daemon);
        $answered = $lost = 0;
        $futures = [];
        for ($f = 0; $f < 200; $f++) {
            $futures[] = Async::run(static function () use ($client, $f, &$answered, &$lost): void {
                Async::delay(0.001); // so that they all wait together
                for ($i = 0; $i < 20; $i++) {
                    $payload = \pack('NN', $f, $i);
                    try {
                        self::assertSame(ByteFrequency::expected($payload), $client->request($payload));
                        $answered++;
                    } catch (ConnectionLostException) {
                        $lost++;
                    }
                    if ($i === 10 && $f % 50 === 7) {
                        $client->close();
                    }
                }
            });
        }
        $timeout = new TimeoutCancellation(20.0);
        Future::awaitAll($futures, $timeout);
        $timeout->dispose();

        self::assertSame(4000, $answered + $lost);
        self::assertGreaterThan(0, $lost, 'the closes hit requests in flight');
        self::assertSame(ByteFrequency::expected('after'), $client->request('after'));
        $client->close();
    }
}
