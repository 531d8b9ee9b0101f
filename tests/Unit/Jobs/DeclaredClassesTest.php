<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Jobs;

use Bobbin\Jobs\Execution\ResultNotSerializableException;
use Bobbin\Jobs\Execution\TaskRunner;
use Bobbin\Jobs\Jobs;
use Bobbin\Jobs\TaskFailedException;
use Bobbin\Jobs\TaskNotSerializableException;
use Bobbin\Jobs\Wire\EncodedTask;
use Bobbin\Tests\Support\Jobs\Currency;
use Bobbin\Tests\Support\Jobs\DoubleMoneyTask;
use Bobbin\Tests\Support\Jobs\EchoTask;
use Bobbin\Tests\Support\Jobs\Gadget;
use Bobbin\Tests\Support\Jobs\Money;
use PHPUnit\Framework\TestCase;

/**
 * Tasks and results are unserialized into the classes their task declares (#[Carries]) only:
 * an object of any other class is never made, whoever signed the bytes.
 */
final class DeclaredClassesTest extends TestCase
{
    private string $marker = '';

    protected function setUp(): void
    {
        $this->marker = \sys_get_temp_dir() . '/bobbin-gadget-' . \bin2hex(\random_bytes(4));
    }

    protected function tearDown(): void
    {
        @\unlink($this->marker);
    }

    public function testATaskCarriesTheObjectsItDeclaresAndEnumsWithoutADeclaration(): void
    {
        $doubled = Jobs::inProcess()->submit(new DoubleMoneyTask(new Money(150, Currency::Eur)))->await();

        self::assertEquals(new Money(300, Currency::Eur), $doubled);
    }

    public function testATaskCarryingAnObjectOfAClassItDoesNotDeclareIsRefusedAtSubmitNamingTheFix(): void
    {
        try {
            Jobs::inProcess()->submit(new EchoTask(['when' => new \DateTimeImmutable('2026-01-01')]));
            self::fail('the task was accepted');
        } catch (TaskNotSerializableException $refused) {
            self::assertSame(EchoTask::class . "->value['when']", $refused->path);
            self::assertStringContainsString(
                'is an object of DateTimeImmutable, which ' . EchoTask::class . ' does not declare it may carry: add #[\Bobbin\Jobs\Carries(\DateTimeImmutable::class)] to ' . EchoTask::class,
                $refused->getMessage(),
            );
        }
    }

    public function testAResultWithAnObjectOfAClassTheTaskDoesNotDeclareFailsTheTask(): void
    {
        try {
            Jobs::inProcess()->submit(new DoubleMoneyTask(new Money(1, Currency::Usd), smuggle: true))->await();
            self::fail('the result came back');
        } catch (TaskFailedException $failed) {
            self::assertSame(ResultNotSerializableException::class, $failed->remoteClass());
            self::assertStringContainsString("the result['total'] is an object of ArrayObject, which " . DoubleMoneyTask::class . ' does not declare it may carry', $failed->remoteMessage());
        }
    }

    public function testAGadgetInsideATaskPayloadIsNeverMadeEvenWhenTheBytesAreTrusted(): void
    {
        // What a sender holding the key (a compromised HTTP worker) could write by hand, past submit()'s checks.
        $payload = \str_replace('s:1:"x";', Gadget::payload($this->marker), \serialize(new EchoTask('x')));

        $outcome = (new TaskRunner())->run(new EncodedTask(EchoTask::class, $payload, 0.0));
        \gc_collect_cycles();

        self::assertFileDoesNotExist($this->marker, 'the gadget woke up or was destructed');
        self::assertSame(ResultNotSerializableException::class, $outcome->error?->class, 'the task saw only an inert __PHP_Incomplete_Class');
    }

    public function testAGadgetAsTheTaskItselfIsRefused(): void
    {
        $outcome = (new TaskRunner())->run(new EncodedTask(EchoTask::class, Gadget::payload($this->marker), 0.0));
        \gc_collect_cycles();

        self::assertFileDoesNotExist($this->marker);
        self::assertStringContainsString('is not a task of that class', (string) $outcome->error?->message);
    }

    public function testAGadgetInAResultIsNeverMadeInTheCaller(): void
    {
        // What a compromised job worker could send back.
        $result = TaskRunner::unserializeResult(DoubleMoneyTask::class, 'a:1:{i:0;' . Gadget::payload($this->marker) . '}');
        unset($result);
        \gc_collect_cycles();

        self::assertFileDoesNotExist($this->marker);
    }

    public function testTheGadgetDoesWhatItShouldWhenUnserializedWithoutLimits(): void
    {
        // The control: the same bytes, unserialize() as it was before declarations.
        $gadget = \unserialize(Gadget::payload($this->marker));
        unset($gadget);

        self::assertStringStartsWith('wakeup ', (string) \file_get_contents($this->marker));
    }
}
