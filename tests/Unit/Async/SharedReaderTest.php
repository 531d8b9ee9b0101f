<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Future;
use Bobbin\Async\ReplySource;
use Bobbin\Async\SharedReader;

/** The shared reading with a scripted "connection": a queue of answers each read hands out. */
final class SharedReaderTest extends AsyncTestCase implements ReplySource
{
    /** @var list<array{int, string}> */
    private array $incoming = [];
    /** @var list<string> who read, and whether it was the first read of its turn */
    private array $reads = [];
    private ?\Throwable $breakWith = null;
    private SharedReader $reader;

    protected function setUp(): void
    {
        parent::setUp();
        $this->reader = new SharedReader();
    }

    public function readReplies(?Cancellation $cancellation, bool $first): void
    {
        $this->reads[] = ($first ? 'first' : 'more');
        if ($this->breakWith !== null) {
            $this->reader->failAll($this->breakWith);
            throw $this->breakWith;
        }
        if ($this->incoming === []) {
            Async::delay(0.001, $cancellation); // nothing arrived yet: let other fibers run
            return;
        }
        $incoming = $this->incoming;
        $this->incoming = [];
        foreach ($incoming as [$key, $answer]) {
            $this->reader->deliver($key, $answer);
        }
    }

    public function testAnswersArrivingInAnyOrderReachTheFibersThatAskedForThem(): void
    {
        $futures = [];
        foreach ([1, 2, 3] as $key) {
            $futures[$key] = Async::run(fn () => $this->reader->await($key, null, $this));
        }
        Async::delay(0.005);
        self::assertTrue($this->reader->isReading());
        self::assertTrue($this->reader->isWaiting(2));
        $this->incoming = [[3, 'three'], [1, 'one'], [2, 'two']];

        self::assertSame([1 => 'one', 2 => 'two', 3 => 'three'], Future::awaitAll($futures));
        self::assertFalse($this->reader->isReading());
    }

    public function testTheReadingPassesToTheFiberWaitingLongestWhenTheReaderIsAnswered(): void
    {
        $first = Async::run(fn () => $this->reader->await(1, null, $this));
        $second = Async::run(fn () => $this->reader->await(2, null, $this));
        Async::delay(0.005);
        $this->incoming = [[1, 'one']];
        self::assertSame('one', $first->await());
        self::assertTrue($this->reader->isReading(), 'the second fiber reads now');
        $this->reads = [];
        // Only a reader reads: the second fiber must have taken over to see its answer.
        $this->incoming = [[2, 'two']];
        self::assertSame('two', $second->await());
        self::assertSame('first', $this->firstRead(), 'a new turn starts with a first read');
    }

    public function testAnAnswerThatArrivesBeforeTheNextReaderRunsIsKeptForIt(): void
    {
        $first = Async::run(fn () => $this->reader->await(1, null, $this));
        $second = Async::run(fn () => $this->reader->await(2, null, $this));
        Async::delay(0.005);
        // One read finds both: the second's answer comes while the reading is passed to it.
        $this->incoming = [[1, 'one'], [2, 'two']];
        self::assertSame('one', $first->await());
        $this->reads = [];
        self::assertSame('two', $second->await());
        self::assertSame([], $this->reads, 'its answer was in: no read');
    }

    public function testACancelledWaiterGetsCancelledAndItsLateAnswerIsDropped(): void
    {
        $leader = Async::run(fn () => $this->reader->await(1, null, $this));
        $this->cancelTheWaitFor(2, first: false);
        $this->incoming = [[2, 'late'], [1, 'one']];
        self::assertSame('one', $leader->await());
        self::assertFalse($this->reader->isReading());
    }

    public function testACancelledReaderPassesTheReadingOn(): void
    {
        $waiter = $this->cancelTheWaitFor(1, first: true);
        $this->incoming = [[1, 'late'], [2, 'two']];
        self::assertNotNull($waiter);
        self::assertSame('two', $waiter->await());
    }

    public function testFailAllThrowsTheErrorIntoEveryWaiterAndEveryLaterWait(): void
    {
        $error = new \RuntimeException('gone');
        $futures = [];
        foreach ([1, 2, 3] as $key) {
            $futures[] = Async::run(fn () => $this->reader->await($key, null, $this));
        }
        Async::delay(0.005);
        $this->breakWith = $error;
        foreach ($futures as $future) {
            try {
                $future->await();
                self::fail('A waiter returned after failAll');
            } catch (\RuntimeException $e) {
                self::assertSame($error, $e);
            }
        }
        self::assertFalse($this->reader->isReading());
        $this->breakWith = null;
        $this->expectExceptionObject($error);
        $this->reader->await(4, null, $this);
    }

    public function testAFiberHandedTheReadingAsTheConnectionBreaksGetsTheErrorWithoutReading(): void
    {
        $error = new \RuntimeException('gone');
        $first = Async::run(function () use ($error): string {
            $answer = $this->reader->await(1, null, $this);
            // The second was handed the reading and is not resumed yet.
            $this->reads = [];
            $this->reader->failAll($error);

            return $answer;
        });
        $second = Async::run(fn () => $this->reader->await(2, null, $this));
        Async::delay(0.005);
        $this->incoming = [[1, 'one']];
        self::assertSame('one', $first->await());
        try {
            $second->await();
            self::fail('The next reader returned after failAll');
        } catch (\RuntimeException $e) {
            self::assertSame($error, $e);
        }
        self::assertSame([], $this->reads);
        self::assertFalse($this->reader->isReading());
    }

    public function testALoneCallerInMainReadsForItself(): void
    {
        $this->incoming = [[7, 'seven']];
        self::assertSame('seven', $this->reader->await(7, null, $this));
        self::assertSame(['first'], $this->reads);
    }

    private function firstRead(): ?string
    {
        return $this->reads[0] ?? null;
    }

    /**
     * A wait for $key under a cancellation that fires while it waits: the reader's when $first
     * (then another fiber waits for $key + 1 and is returned), else one behind a reader.
     *
     * @return Future<mixed>|null
     */
    private function cancelTheWaitFor(int $key, bool $first): ?Future
    {
        $source = new CancellationSource();
        $cancelled = Async::run(fn () => $this->reader->await($key, $source->token(), $this));
        $behind = $first ? Async::run(fn () => $this->reader->await($key + 1, null, $this)) : null;
        Async::delay(0.005);
        $source->cancel();
        try {
            $cancelled->await();
            self::fail('The cancelled wait returned');
        } catch (CancelledException) {
        }

        return $behind;
    }
}
