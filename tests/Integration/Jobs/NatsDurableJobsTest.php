<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Jobs;

use Bobbin\Async\Async;
use Bobbin\Jobs\JobException;
use Bobbin\Tests\Support\Nats\DurableJournalTask;
use Bobbin\Tests\Support\Nats\EmbeddedNats;
use Bobbin\Tests\Support\Nats\JobsWorkerProcess;
use PHPUnit\Framework\TestCase;

/** Durable tasks over JetStream (at least once) through real `bin/bobbin jobs-worker` processes. */
final class NatsDurableJobsTest extends TestCase
{
    private string $transport = '';
    private string $journal = '';
    /** @var list<JobsWorkerProcess> */
    private array $workers = [];

    protected function setUp(): void
    {
        // A stream and consumer of its own per test; a short ack wait, so a dead worker's task comes back soon.
        $tag = \bin2hex(\random_bytes(4));
        $this->transport = EmbeddedNats::url() . "?subject=durable.$tag&stream=DURABLE$tag&consumer=workers$tag&heartbeat=0.2&ack_wait=1&durable_wait=30";
        $this->journal = (string) \tempnam(\sys_get_temp_dir(), 'bobbin-nats-durable-');
    }

    protected function tearDown(): void
    {
        JobsWorkerProcess::closeCallers();
        foreach ($this->workers as $worker) {
            $worker->kill();
        }
        @\unlink($this->journal);
    }

    public function testADurableTaskRunsOnAJobsWorkerAndKnowsItIsTheFirstDelivery(): void
    {
        $this->workers[] = $worker = $this->worker();

        $result = JobsWorkerProcess::jobs($this->transport)->submit(new DurableJournalTask('invoice-1', 0.0, $this->journal))->await();

        self::assertSame('invoice-1', $result['key']);
        self::assertSame(1, $result['attempt']);
        self::assertContains($result['pid'], $worker->jobWorkerPids());
    }

    public function testADurableTaskWhoseJobsWorkerIsKilledBeforeItsAckRunsAgainOnTheOtherOnceToItsEnd(): void
    {
        $this->workers[] = $doomed = $this->worker();
        $jobs = JobsWorkerProcess::jobs($this->transport);
        $future = $jobs->submit(new DurableJournalTask('invoice-2', 1.0, $this->journal));
        $this->waitForJournal('start invoice-2 1 ');
        self::assertStringContainsString('start invoice-2 1 ' . $doomed->jobWorkerPids()[0], $this->journalText());

        $doomed->kill(); // kill -9 of the jobs-worker, its JobMaster and the job worker running the task
        $this->workers[] = $survivor = $this->worker();
        $result = $future->await();

        self::assertSame(2, $result['attempt'], 'the second delivery, and the task could tell');
        self::assertContains($result['pid'], $survivor->jobWorkerPids());
        $lines = \array_filter(\explode("\n", $this->journalText()));
        self::assertSame(
            ['start invoice-2 1', 'start invoice-2 2', 'end invoice-2 2'],
            \array_map(static fn (string $line): string => \implode(' ', \array_slice(\explode(' ', $line), 0, 3)), \array_values($lines)),
            'the killed run never ended; the second ran once, to its end',
        );
        Async::delay(1.5); // past another ack wait: an acked task is not delivered again
        self::assertCount(3, \array_filter(\explode("\n", $this->journalText())));
    }

    public function testASecondSubmitWithTheSameIdempotencyKeyIsRefusedAndTheTaskRunsOnce(): void
    {
        $this->workers[] = $this->worker();
        $jobs = JobsWorkerProcess::jobs($this->transport);
        $first = $jobs->submit(new DurableJournalTask('invoice-3', 0.3, $this->journal));
        $this->waitForJournal('start invoice-3 ');

        try {
            $jobs->submit(new DurableJournalTask('invoice-3', 0.3, $this->journal))->await();
            self::fail('the same key ran twice');
        } catch (JobException $duplicate) {
            self::assertStringContainsString('with idempotency key invoice-3 was submitted already', $duplicate->getMessage());
        }
        self::assertSame(1, $first->await()['attempt']);
        self::assertSame(1, \substr_count($this->journalText(), 'start invoice-3 '));
    }

    public function testADurableTaskSubmittedWhileNoJobsWorkerRunsWaitsInTheStreamForTheFirstOne(): void
    {
        $jobs = JobsWorkerProcess::jobs($this->transport);
        // The stream exists once a jobs-worker made it; then one stops, and a task comes.
        $first = $this->worker();
        self::assertSame(0, $first->stop());
        $future = $jobs->submit(new DurableJournalTask('invoice-4', 0.0, $this->journal));
        Async::delay(0.5);
        self::assertSame('', $this->journalText(), 'nothing ran it yet');

        $this->workers[] = $this->worker();

        self::assertSame('invoice-4', $future->await()['key']);
    }

    private function worker(): JobsWorkerProcess
    {
        return new JobsWorkerProcess($this->transport, ['--job-workers=1', '--durable-slots=1', '--prefetch=0']);
    }

    private function waitForJournal(string $needle): void
    {
        $deadline = \microtime(true) + 10.0;
        while (!\str_contains($this->journalText(), $needle) && \microtime(true) < $deadline) {
            Async::delay(0.02);
        }
    }

    private function journalText(): string
    {
        return (string) \file_get_contents($this->journal);
    }
}
