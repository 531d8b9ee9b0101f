<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Channel;
use Bobbin\Async\ChannelClosedException;
use Bobbin\Async\Future;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Async\TimeoutException;

final class ChannelTest extends AsyncTestCase
{
    public function testValuesArriveInTheOrderTheyWereSent(): void
    {
        /** @var Channel<int> $channel */
        $channel = new Channel(3);
        $producer = Async::run(static function () use ($channel): void {
            for ($i = 0; $i < 500; $i++) {
                $channel->send($i);
            }
            $channel->close();
        });

        $received = [];
        try {
            while (true) {
                $received[] = $channel->receive();
            }
        } catch (ChannelClosedException) {
        }

        $producer->await();
        self::assertSame(\range(0, 499), $received);
    }

    public function testASenderBlocksWhileTheBufferIsFull(): void
    {
        $channel = new Channel(2);
        $log = [];
        $producer = Async::run(static function () use ($channel, &$log): void {
            foreach (['a', 'b', 'c'] as $value) {
                $channel->send($value);
                $log[] = "sent $value";
            }
        });
        Async::delay(0.005);

        self::assertSame(['sent a', 'sent b'], $log, 'the third send waits for room');
        self::assertSame(2, $channel->count());
        self::assertFalse($producer->isComplete());

        self::assertSame('a', $channel->receive());
        $producer->await();
        self::assertSame(['sent a', 'sent b', 'sent c'], $log);
        self::assertSame(['b', 'c'], [$channel->receive(), $channel->receive()]);
    }

    public function testAReceiverBlocksUntilAValueIsSent(): void
    {
        $channel = new Channel(1);
        $receiver = Async::run(static fn () => $channel->receive());
        Async::delay(0.005);
        self::assertFalse($receiver->isComplete());

        $channel->send('hello');

        self::assertSame('hello', $receiver->await());
        self::assertSame(0, $channel->count(), 'handed over directly, not buffered');
    }

    public function testAfterCloseBufferedValuesAreStillReceivedThenTheChannelReportsClosed(): void
    {
        $channel = new Channel(5);
        $channel->send(1);
        $channel->send(2);
        $channel->close();
        self::assertTrue($channel->isClosed());

        self::assertSame(1, $channel->receive());
        self::assertSame(2, $channel->receive());
        $this->expectException(ChannelClosedException::class);
        $channel->receive();
    }

    public function testSendersStillWaitingAtCloseGetChannelClosedExceptionAndTheirValueIsDropped(): void
    {
        $channel = new Channel(1);
        $channel->send('buffered');
        $waitingSender = Async::run(static fn () => $channel->send('never delivered'));
        Async::delay(0.005);

        $channel->close();

        try {
            $waitingSender->await();
            self::fail('The waiting sender should learn that its value was not taken');
        } catch (ChannelClosedException) {
        }
        self::assertSame('buffered', $channel->receive());
        $this->expectException(ChannelClosedException::class);
        $channel->receive();
    }

    public function testReceiversWaitingAtCloseGetChannelClosedException(): void
    {
        $channel = new Channel(1);
        $receivers = [
            Async::run(static fn () => $channel->receive()),
            Async::run(static fn () => $channel->receive()),
        ];
        Async::delay(0.005);

        $channel->close();

        foreach ($receivers as $receiver) {
            try {
                $receiver->await();
                self::fail('A waiting receiver should be woken by close()');
            } catch (ChannelClosedException) {
            }
        }
    }

    public function testSendingOnAClosedChannelFails(): void
    {
        $channel = new Channel(1);
        $channel->close();
        $channel->close();

        $this->expectException(ChannelClosedException::class);
        $channel->send('too late');
    }

    public function testACancelledReceiverLosesNoValue(): void
    {
        $channel = new Channel(1);
        $source = new CancellationSource();
        $cancelled = Async::run(static fn () => $channel->receive($source));
        $patient = Async::run(static fn () => $channel->receive());
        Async::delay(0.005);

        $source->cancel();
        try {
            $cancelled->await();
            self::fail('The receive should have been cancelled');
        } catch (CancelledException) {
        }
        $channel->send('for the patient one');

        self::assertSame('for the patient one', $patient->await());
    }

    public function testASendThatTimesOutDoesNotDeliverItsValue(): void
    {
        $channel = new Channel(1);
        $channel->send('first');

        try {
            $channel->send('second', new TimeoutCancellation(0.01));
            self::fail('The send should have timed out');
        } catch (TimeoutException) {
        }

        self::assertSame('first', $channel->receive());
        self::assertSame(0, $channel->count());
        $channel->send('third');
        self::assertSame('third', $channel->receive());
    }

    public function testManyProducersAndConsumersExchangeEveryValueExactlyOnce(): void
    {
        $channel = new Channel(4);
        $producers = [];
        for ($p = 0; $p < 5; $p++) {
            $producers[] = Async::run(static function () use ($channel, $p): void {
                for ($i = 0; $i < 100; $i++) {
                    $channel->send($p * 1000 + $i);
                    if ($i % 7 === 0) {
                        Async::delay(0);
                    }
                }
            });
        }
        $consumers = [];
        for ($c = 0; $c < 3; $c++) {
            $consumers[] = Async::run(static function () use ($channel): array {
                $got = [];
                try {
                    while (true) {
                        $got[] = $channel->receive();
                    }
                } catch (ChannelClosedException) {
                }

                return $got;
            });
        }

        Future::awaitAll($producers);
        $channel->close();
        $all = \array_merge(...Future::awaitAll($consumers));
        \sort($all);

        $expected = [];
        for ($p = 0; $p < 5; $p++) {
            \array_push($expected, ...\range($p * 1000, $p * 1000 + 99));
        }
        self::assertSame($expected, $all);
    }

    public function testACapacityBelowOneIsRejected(): void
    {
        $this->expectException(\ValueError::class);
        new Channel(0);
    }
}
