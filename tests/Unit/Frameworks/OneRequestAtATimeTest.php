<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Frameworks;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Future;
use Bobbin\Frameworks\OneRequestAtATime;
use Bobbin\Frameworks\RequestScope;
use Bobbin\Http\ClosureHandler;
use Bobbin\Http\Message\Response;
use Bobbin\Http\Message\ServerRequest;
use Bobbin\Http\RequestCancellation;
use Bobbin\Tests\Unit\Async\AsyncTestCase;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;

final class OneRequestAtATimeTest extends AsyncTestCase
{
    public function testRequestsThatWaitInsideTheApplicationNeverOverlapAndEnterInArrivalOrder(): void
    {
        $inside = 0;
        $most = 0;
        $entered = [];
        $gate = new OneRequestAtATime(new ClosureHandler(static function (ServerRequestInterface $request) use (&$inside, &$most, &$entered): ResponseInterface {
            $entered[] = $request->getUri()->getPath();
            $most = \max($most, ++$inside);
            Async::delay(0.01);
            $inside--;

            return new Response(200);
        }));

        $tasks = [];
        foreach (['/1', '/2', '/3', '/4'] as $path) {
            $tasks[] = Async::run(static fn () => $gate->handle(ServerRequest::create('GET', $path)));
            Async::delay(0);
        }
        Future::awaitAll($tasks);

        self::assertSame(1, $most);
        self::assertSame(['/1', '/2', '/3', '/4'], $entered);
    }

    public function testOtherFibersOfTheWorkerRunWhileARequestWaitsInside(): void
    {
        $ticks = 0;
        $gate = new OneRequestAtATime(new ClosureHandler(static function () use (&$ticks): ResponseInterface {
            Async::delay(0.05);

            return new Response(200, [], (string) $ticks);
        }));
        $ticker = Async::run(static function () use (&$ticks): void {
            for ($i = 0; $i < 5; $i++) {
                Async::delay(0.005);
                $ticks++;
            }
        });

        $response = Async::run(static fn () => $gate->handle(ServerRequest::create('GET', '/')))->await();
        $ticker->await();

        self::assertSame('5', (string) $response->getBody());
    }

    public function testARequestCancelledWhileQueuedNeverEntersAndTheNextOneDoes(): void
    {
        $entered = [];
        $gate = new OneRequestAtATime(new ClosureHandler(static function (ServerRequestInterface $request) use (&$entered): ResponseInterface {
            $entered[] = $request->getUri()->getPath();
            Async::delay(0.02);

            return new Response(200);
        }));
        $source = new CancellationSource();
        $first = Async::run(static fn () => $gate->handle(ServerRequest::create('GET', '/first')));
        Async::delay(0);
        $cancelled = Async::run(static fn () => $gate->handle(
            ServerRequest::create('GET', '/cancelled')->withAttribute(RequestCancellation::ATTRIBUTE, $source->token()),
        ));
        $third = Async::run(static fn () => $gate->handle(ServerRequest::create('GET', '/third')));
        Async::delay(0.005);
        $source->cancel();

        $first->await();
        $third->await();
        try {
            $cancelled->await();
            self::fail('the cancelled request was served');
        } catch (CancelledException) {
        }
        self::assertSame(['/first', '/third'], $entered);
    }

    public function testResetsRunAfterEveryRequestBeforeTheNextEntersEvenWhenTheHandlerThrows(): void
    {
        $log = [];
        $gate = new OneRequestAtATime(
            new ClosureHandler(static function (ServerRequestInterface $request) use (&$log): ResponseInterface {
                $log[] = 'handle ' . $request->getUri()->getPath();
                Async::delay(0.001);
                if ($request->getUri()->getPath() === '/throw') {
                    throw new \RuntimeException('application failure');
                }

                return new Response(200);
            }),
            [static function () use (&$log): void {
                $log[] = 'reset';
            }],
        );

        $throwing = Async::run(static fn () => $gate->handle(ServerRequest::create('GET', '/throw')));
        $next = Async::run(static fn () => $gate->handle(ServerRequest::create('GET', '/next')));
        $next->await();
        try {
            $throwing->await();
            self::fail('the failure did not reach the server');
        } catch (\RuntimeException $e) {
            self::assertSame('application failure', $e->getMessage());
        }

        self::assertSame(['handle /throw', 'reset', 'handle /next', 'reset'], $log);
    }

    public function testTheRequestsCancellationIsInTheRequestScopeOnlyWhileItIsInside(): void
    {
        $source = new CancellationSource();
        $seen = null;
        $gate = new OneRequestAtATime(new ClosureHandler(static function () use (&$seen): ResponseInterface {
            $seen = RequestScope::cancellation();

            return new Response(200);
        }));

        $gate->handle(ServerRequest::create('GET', '/')->withAttribute(RequestCancellation::ATTRIBUTE, $source->token()));

        self::assertSame($source->token(), $seen);
        self::assertNull(RequestScope::cancellation());
    }

    public function testAFailingResetIsReportedAfterTheOthersRanAndTheGateOpensAgain(): void
    {
        $ran = [];
        $gate = new OneRequestAtATime(new ClosureHandler(static fn (): ResponseInterface => new Response(200)), [
            static function (): void {
                throw new \LogicException('reset failed');
            },
            static function () use (&$ran): void {
                $ran[] = 'second reset';
            },
        ]);

        try {
            $gate->handle(ServerRequest::create('GET', '/'));
            self::fail('the failing reset was swallowed');
        } catch (\LogicException $e) {
            self::assertSame('reset failed', $e->getMessage());
        }
        self::assertSame(['second reset'], $ran);

        $this->expectException(\LogicException::class);
        $gate->handle(ServerRequest::create('GET', '/')); // not stuck at the gate: it enters and fails the same way
    }
}
