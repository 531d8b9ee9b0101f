<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Aircraft;

use Bobbin\Apps\Aircraft\Container;
use Bobbin\Apps\Aircraft\ServiceCycleException;
use PHPUnit\Framework\TestCase;
use Psr\Container\NotFoundExceptionInterface;

final class ContainerTest extends TestCase
{
    public function testAServiceIsBuiltOnceOnFirstUseAndThenShared(): void
    {
        $builds = 0;
        $container = new Container(['clock' => static function () use (&$builds): \stdClass {
            $builds++;

            return new \stdClass();
        }]);

        self::assertSame(0, $builds);
        $first = $container->get('clock');
        self::assertSame($first, $container->get('clock'));
        self::assertSame(1, $builds);
    }

    public function testFactoriesReceiveTheContainerToFetchDependencies(): void
    {
        $container = new Container([
            'name' => static fn (): string => 'bobbin',
            'greeting' => static fn (Container $c): string => 'hello ' . $c->get('name'),
        ]);

        self::assertSame('hello bobbin', $container->get('greeting'));
    }

    public function testAnUnknownIdIsAPsrNotFoundError(): void
    {
        $container = new Container([]);

        self::assertFalse($container->has('missing'));
        $this->expectException(NotFoundExceptionInterface::class);
        $this->expectExceptionMessage('No service "missing" is defined');

        $container->get('missing');
    }

    public function testAServiceThatDependsOnItselfIsReportedInsteadOfRecursingForever(): void
    {
        $container = new Container([
            'a' => static fn (Container $c): mixed => $c->get('b'),
            'b' => static fn (Container $c): mixed => $c->get('a'),
        ]);

        $this->expectException(ServiceCycleException::class);
        $this->expectExceptionMessage('depends on itself');

        $container->get('a');
    }
}
