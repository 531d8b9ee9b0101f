<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\CompositeException;
use Bobbin\Async\DeferredFuture;
use Bobbin\Async\Future;

/** Future::awaitAll, Future::awaitAny and Async::map. */
final class CombinatorTest extends AsyncTestCase
{
    public function testAwaitAllKeepsTheKeysInInputOrderWhateverTheFinishingOrder(): void
    {
        $futures = [
            'slow' => Async::run(static function (): string {
                Async::delay(0.03);

                return 'S';
            }),
            'fast' => Async::run(static fn (): string => 'F'),
            7 => Future::complete('done'),
        ];

        self::assertSame(['slow' => 'S', 'fast' => 'F', 7 => 'done'], Future::awaitAll($futures));
    }

    public function testAwaitAllThrowsTheFirstFailureWithoutWaitingForSlowerFutures(): void
    {
        $never = new DeferredFuture();
        $futures = [
            'pending' => $never->future(),
            'fails' => Async::run(static function (): never {
                Async::delay(0.005);
                throw new \DomainException('failed early');
            }),
        ];

        try {
            Future::awaitAll($futures);
            self::fail('awaitAll should have thrown');
        } catch (\DomainException $e) {
            self::assertSame('failed early', $e->getMessage());
        }
        self::assertFalse($never->isComplete());
    }

    public function testAwaitAllOfNothingIsEmpty(): void
    {
        self::assertSame([], Future::awaitAll([]));
    }

    public function testAwaitAllStopsWaitingWhenCancelled(): void
    {
        $never = new DeferredFuture();
        $source = new CancellationSource();
        Async::run(static function () use ($source): void {
            Async::delay(0.005);
            $source->cancel();
        });

        $this->expectException(CancelledException::class);
        Future::awaitAll([$never->future()], $source);
    }

    public function testAwaitAnyReturnsTheFirstSuccessAndSkipsFailures(): void
    {
        $futures = [
            Async::run(static function (): never {
                throw new \DomainException('fails first');
            }),
            Async::run(static function (): string {
                Async::delay(0.01);

                return 'second';
            }),
            Async::run(static function (): string {
                Async::delay(0.5);

                return 'too slow';
            }),
        ];

        self::assertSame('second', Future::awaitAny($futures));
    }

    public function testAwaitAnyAnswersAtOnceWhenAFutureAlreadySucceeded(): void
    {
        $pending = new DeferredFuture();

        self::assertSame('ready', Future::awaitAny([
            Future::error(new \DomainException('already failed')),
            $pending->future(),
            Future::complete('ready'),
        ]));
    }

    public function testAwaitAnyWithEveryFutureFailingThrowsACompositeOfAllErrors(): void
    {
        $futures = [
            'a' => Async::run(static function (): never {
                Async::delay(0.01);
                throw new \DomainException('a failed');
            }),
            'b' => Future::error(new \RangeException('b failed')),
            'c' => Async::run(static function (): never {
                throw new \LogicException('c failed');
            }),
        ];

        try {
            Future::awaitAny($futures);
            self::fail('awaitAny should have thrown');
        } catch (CompositeException $e) {
            $errors = $e->errors();
            \ksort($errors);
            self::assertSame(['a', 'b', 'c'], \array_keys($errors));
            self::assertSame('a failed', $errors['a']->getMessage());
            self::assertInstanceOf(\RangeException::class, $errors['b']);
            self::assertInstanceOf(\LogicException::class, $errors['c']);
            self::assertStringContainsString('b failed', $e->getMessage());
        }
    }

    public function testAwaitAnyDoesNotReportALoserThatFailsAfterTheWinner(): void
    {
        $loser = Async::run(static function (): never {
            Async::delay(0.01);
            throw new \DomainException('lost anyway');
        });

        self::assertSame('winner', Future::awaitAny([Future::complete('winner'), $loser]));
        Async::delay(0.03);
        unset($loser);
        self::assertSame([], $this->takeReported());
    }

    public function testAwaitAnyOfNothingIsAnError(): void
    {
        $this->expectException(\ValueError::class);
        Future::awaitAny([]);
    }

    public function testMapKeepsTheKeysAndTheInputOrder(): void
    {
        $inputs = ['x' => 30, 'y' => 1, 'z' => 15, 4 => 0];

        $results = Async::map($inputs, static function (int $ms, string|int $key): string {
            Async::delay($ms / 1000);

            return "$key:$ms";
        }, 4);

        self::assertSame(['x' => 'x:30', 'y' => 'y:1', 'z' => 'z:15', 4 => '4:0'], $results);
    }

    public function testMapNeverRunsMoreThanTheConcurrencyLimitAtOnce(): void
    {
        $running = 0;
        $peak = 0;

        $results = Async::map(\range(1, 20), static function (int $n) use (&$running, &$peak): int {
            $running++;
            $peak = \max($peak, $running);
            Async::delay(0.002);
            $running--;

            return $n * 2;
        }, 3);

        self::assertSame(3, $peak);
        self::assertSame(\range(2, 40, 2), $results);
    }

    public function testMapAcceptsAGenerator(): void
    {
        $inputs = (static function (): \Generator {
            yield 'a' => 1;
            yield 'b' => 2;
        })();

        self::assertSame(['a' => 10, 'b' => 20], Async::map($inputs, static fn (int $n): int => $n * 10, 5));
    }

    public function testMapStartsNoNewInputAfterAFailureAndThrowsOnceRunningCallsFinish(): void
    {
        $started = [];
        $finished = [];

        try {
            Async::map(\range(0, 9), static function (int $n) use (&$started, &$finished): int {
                $started[] = $n;
                if ($n === 1) {
                    throw new \DomainException('input 1 is bad');
                }
                Async::delay(0.02);
                $finished[] = $n;

                return $n;
            }, 2);
            self::fail('map should have thrown');
        } catch (\DomainException $e) {
            self::assertSame('input 1 is bad', $e->getMessage());
        }

        self::assertSame([0, 1], $started);
        self::assertSame([0], $finished, 'the call already running was allowed to finish');
    }

    public function testMapRejectsAConcurrencyBelowOne(): void
    {
        $this->expectException(\ValueError::class);
        Async::map([1], static fn (int $n): int => $n, 0);
    }

    public function testMapOfNothingIsEmpty(): void
    {
        self::assertSame([], Async::map([], static fn (int $n): int => $n, 3));
    }

    public function testCancellingMapStopsStartingInputsWithoutReportingErrors(): void
    {
        $source = new CancellationSource();
        $started = 0;
        Async::run(static function () use ($source): void {
            Async::delay(0.01);
            $source->cancel();
        });

        try {
            Async::map(\range(1, 1000), static function () use (&$started): void {
                $started++;
                Async::delay(0.004);
            }, 2, $source);
            self::fail('map should have been cancelled');
        } catch (CancelledException) {
        }
        $startedAtCancel = $started;
        Async::delay(0.05);

        self::assertLessThan(1000, $startedAtCancel);
        self::assertSame($startedAtCancel, $started, 'no input starts after the cancellation');
        self::assertSame([], $this->takeReported());
    }
}
