<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Jobs;

use Bobbin\Jobs\Execution\SerializationInspector;
use Bobbin\Jobs\Task;
use Bobbin\Jobs\TaskNotSerializableException;
use Bobbin\Jobs\Execution\TaskEncoder;
use Bobbin\Pool\Pool;
use Bobbin\Pool\PoolSettings;
use Bobbin\Tests\Unit\Pool\FakeConnector;
use PHPUnit\Framework\TestCase;

/** What cannot travel to a job worker is found, and named by where it sits. */
final class SerializationInspectorTest extends TestCase
{
    public function testPlainDataCanTravel(): void
    {
        $value = ['a' => 1, 'b' => [1.5, 'x', null, true], 'c' => new \DateTimeImmutable('2024-01-01'), 'd' => Suit::Hearts, 'e' => new \ArrayObject([1, 2])];

        self::assertNull(SerializationInspector::findProblem($value, 'value'));
    }

    public function testAClosureInAPropertyIsNamedByItsPath(): void
    {
        $task = new HoldingTask(['options' => ['callback' => static fn () => 1]]);

        self::assertSame(
            ['Bobbin\Tests\Unit\Jobs\HoldingTask->held[\'options\'][\'callback\']', 'is a Closure'],
            SerializationInspector::findProblem($task, HoldingTask::class),
        );
    }

    public function testAResourceIsFoundThoughSerializeWouldTurnItIntoZeroSilently(): void
    {
        $stream = \fopen('php://memory', 'r');
        $task = new HoldingTask(new Inner($stream));

        self::assertSame(
            ['T->held->handle', 'is a resource (stream)'],
            SerializationInspector::findProblem($task, 'T'),
        );
    }

    public function testAClosedResourceIsFoundToo(): void
    {
        $stream = \fopen('php://memory', 'r');
        \assert($stream !== false);
        \fclose($stream);

        self::assertSame(['T->held', 'is a closed resource'], SerializationInspector::findProblem(new HoldingTask($stream), 'T'));
    }

    public function testAPrivatePropertyOfAParentClassIsVisited(): void
    {
        $child = new ChildOfPrivateHolder(static fn () => 1);

        self::assertSame(['T->secret', 'is a Closure'], SerializationInspector::findProblem($child, 'T'));
    }

    public function testAConnectionOrPoolIsNamedNotThrownThrough(): void
    {
        $pool = new Pool(new FakeConnector(), new PoolSettings(maxSize: 1, acquireTimeout: 1.0));

        $problem = SerializationInspector::findProblem(new HoldingTask(['db' => $pool]), 'T');

        self::assertNotNull($problem);
        self::assertSame("T->held['db']", $problem[0]);
        self::assertStringStartsWith('is a Bobbin\\Pool\\Pool, which cannot be serialized (Bobbin\\Pool\\Pool cannot be serialized: it owns', $problem[1]);
    }

    public function testAnObjectOfAnInternalClassThatRefusesSerializationIsNamed(): void
    {
        $fiber = new \Fiber(static fn () => null);
        $problem = SerializationInspector::findProblem(new HoldingTask(['fiber' => $fiber]), 'T');

        self::assertNotNull($problem);
        self::assertSame("T->held['fiber']", $problem[0]);
        self::assertStringStartsWith('is a Fiber, which cannot be serialized', $problem[1]);
    }

    public function testAnAnonymousClassIsNamed(): void
    {
        $anonymous = new class () {
            public int $x = 1;
        };

        self::assertSame(['T->held', 'is an object of an anonymous class'], SerializationInspector::findProblem(new HoldingTask($anonymous), 'T'));
    }

    public function testPropertiesLeftOutBySleepAreNotLookedAt(): void
    {
        self::assertNull(SerializationInspector::findProblem(new SleepingHolder(), 'T'));
    }

    public function testWhatSerializeReturnsIsWhatIsLookedAt(): void
    {
        self::assertNull(SerializationInspector::findProblem(new SerializingHolder(false), 'T'));
        self::assertSame(['T->late', 'is a Closure'], SerializationInspector::findProblem(new SerializingHolder(true), 'T'));
    }

    public function testACycleOfObjectsIsVisitedOnce(): void
    {
        $a = new \stdClass();
        $b = new \stdClass();
        $a->next = $b;
        $b->next = $a;

        self::assertNull(SerializationInspector::findProblem($a, 'a'));
        $b->late = static fn () => 1;
        self::assertSame(['a->next->late', 'is a Closure'], SerializationInspector::findProblem($a, 'a'));
    }

    public function testSubmittingSuchATaskIsRefusedWithTheTaskClassAndPathInTheMessage(): void
    {
        try {
            TaskEncoder::encode(new HoldingTask(['callback' => static fn () => 1]), 10.0);
            self::fail('The task was accepted');
        } catch (TaskNotSerializableException $refused) {
            self::assertSame(HoldingTask::class, $refused->taskClass);
            self::assertSame(HoldingTask::class . "->held['callback']", $refused->path);
            self::assertSame(
                'The task Bobbin\Tests\Unit\Jobs\HoldingTask cannot be sent to a job worker: Bobbin\Tests\Unit\Jobs\HoldingTask->held[\'callback\'] is a Closure. A task carries plain data; open resources and connections inside run()',
                $refused->getMessage(),
            );
        }
    }
}

enum Suit
{
    case Hearts;
}

final class HoldingTask implements Task
{
    public function __construct(public readonly mixed $held)
    {
    }

    public function run(): mixed
    {
        return null;
    }
}

final class Inner
{
    /** @param resource|false $handle */
    public function __construct(public readonly mixed $handle)
    {
    }
}

class PrivateHolder
{
    public function __construct(private readonly \Closure $secret)
    {
    }

    public function secret(): \Closure
    {
        return $this->secret;
    }
}

final class ChildOfPrivateHolder extends PrivateHolder
{
}

final class SleepingHolder
{
    public int $kept = 1;
    public \Closure $skipped;

    public function __construct()
    {
        $this->skipped = static fn () => 1;
    }

    /** @return list<string> */
    public function __sleep(): array
    {
        return ['kept'];
    }
}

final class SerializingHolder
{
    public function __construct(private readonly bool $withClosure)
    {
    }

    /** @return array<string, mixed> */
    public function __serialize(): array
    {
        return $this->withClosure ? ['late' => static fn () => 1] : ['fine' => 1];
    }

    /** @param array<string, mixed> $data */
    public function __unserialize(array $data): void
    {
    }
}
