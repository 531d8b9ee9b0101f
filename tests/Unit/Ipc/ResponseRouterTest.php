<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Ipc;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Future;
use Bobbin\Ipc\ConnectionLostException;
use Bobbin\Ipc\Internal\ResponseRouter;
use Bobbin\Ipc\Internal\ResponseSource;
use PHPUnit\Framework\TestCase;

/** The router with a scripted "connection": a queue of responses the pump hands out. */
final class ResponseRouterTest extends TestCase
{
    /** @var list<array{int, string}> */
    private array $incoming = [];
    private int $pumps = 0;
    private ResponseRouter $router;
    private \Closure $pump;
    private ResponseSource $source;

    protected function setUp(): void
    {
        $this->router = new ResponseRouter();
        $this->pump = function (): void {
            $this->pumps++;
            if ($this->incoming === []) {
                Async::delay(0.001); // nothing arrived yet: let other fibers run
                return;
            }
            foreach ($this->incoming as [$id, $payload]) {
                $this->router->deliver($id, $payload);
            }
            $this->incoming = [];
        };
        // The router reads a ResponseSource; this one runs whatever $this->pump is at the time.
        $this->source = new class ($this) implements ResponseSource {
            public function __construct(private readonly ResponseRouterTest $test)
            {
            }

            public function pump(?Cancellation $cancellation): void
            {
                $this->test->pumpOnce();
            }
        };
    }

    /** @internal called by the scripted source */
    public function pumpOnce(): void
    {
        ($this->pump)();
    }

    public function testResponsesArrivingInAnyOrderReachTheFibersThatAskedForThem(): void
    {
        $futures = [];
        foreach ([1, 2, 3] as $id) {
            $futures[$id] = Async::run(fn () => $this->router->await($id, null, $this->source));
        }
        Async::delay(0.005);
        $this->incoming = [[3, 'three'], [1, 'one'], [2, 'two']];

        self::assertSame([1 => 'one', 2 => 'two', 3 => 'three'], Future::awaitAll($futures));
        self::assertFalse($this->router->hasWaiters());
    }

    public function testTheLeadPassesToAWaiterWhenTheLeaderIsAnswered(): void
    {
        $first = Async::run(fn () => $this->router->await(1, null, $this->source));
        $second = Async::run(fn () => $this->router->await(2, null, $this->source));
        Async::delay(0.005);
        $this->incoming = [[1, 'one']];
        self::assertSame('one', $first->await());
        // Only a leader pumps: the second fiber must have taken over to see its answer.
        $this->incoming = [[2, 'two']];
        self::assertSame('two', $second->await());
    }

    public function testACancelledWaiterGetsCancelledAndItsLateAnswerIsDropped(): void
    {
        $source = new CancellationSource();
        $leader = Async::run(fn () => $this->router->await(1, null, $this->source));
        $cancelled = Async::run(fn () => $this->router->await(2, $source->token(), $this->source));
        Async::delay(0.005);
        $source->cancel();
        try {
            $cancelled->await();
            self::fail('The cancelled wait returned');
        } catch (CancelledException) {
        }
        $this->incoming = [[2, 'late'], [1, 'one']];
        self::assertSame('one', $leader->await());
    }

    public function testFailAllThrowsTheErrorIntoEveryWaiter(): void
    {
        $error = new ConnectionLostException('gone');
        $this->pump = function () use ($error): void {
            Async::delay(0.005);
            $this->router->failAll($error);
            throw $error;
        };
        $futures = [];
        foreach ([1, 2, 3] as $id) {
            $futures[] = Async::run(fn () => $this->router->await($id, null, $this->source));
        }
        foreach ($futures as $future) {
            try {
                $future->await();
                self::fail('A waiter returned after failAll');
            } catch (ConnectionLostException $e) {
                self::assertSame($error, $e);
            }
        }
        self::assertFalse($this->router->hasWaiters());
    }
}
