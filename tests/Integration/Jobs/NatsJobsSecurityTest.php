<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Jobs;

use Bobbin\Async\Async;
use Bobbin\Jobs\JobWorkersUnavailableException;
use Bobbin\Jobs\Nats\NatsJobsConfig;
use Bobbin\Jobs\Nats\RemoteReplyKind;
use Bobbin\Jobs\Nats\RemoteWire;
use Bobbin\Jobs\Security\JobKeys;
use Bobbin\Jobs\Security\JobSigner;
use Bobbin\Jobs\Security\Refusals;
use Bobbin\Jobs\Wire\EncodedTask;
use Bobbin\Jobs\Wire\JobWire;
use Bobbin\Jobs\Wire\TaskOutcome;
use Bobbin\Nats\Connection;
use Bobbin\Tests\Support\Jobs\EchoTask;
use Bobbin\Tests\Support\Jobs\Gadget;
use Bobbin\Tests\Support\Jobs\JobPool;
use Bobbin\Tests\Support\Jobs\SlowTask;
use Bobbin\Tests\Support\Jobs\TestJobKeys;
use Bobbin\Tests\Support\Nats\EmbeddedNats;
use Bobbin\Tests\Support\Nats\JobsWorkerProcess;
use Bobbin\Tests\Support\Process\BobbinChild;
use PHPUnit\Framework\TestCase;
use Psr\Log\AbstractLogger;

/**
 * Over NATS only what is signed with the shared key, for its reply subject, before its deadline,
 * is ever decoded — whoever else can publish on the subjects. Real jobs-worker processes; the
 * test publishes as an attacker would, straight to the subjects.
 */
final class NatsJobsSecurityTest extends TestCase
{
    /** @var list<JobsWorkerProcess> */
    private array $workers = [];
    private ?Connection $attacker = null;
    private string $marker = '';
    private string $journal = '';

    protected function setUp(): void
    {
        $this->marker = \sys_get_temp_dir() . '/bobbin-gadget-' . \bin2hex(\random_bytes(4));
        $this->journal = (string) \tempnam(\sys_get_temp_dir(), 'bobbin-nats-journal-');
    }

    protected function tearDown(): void
    {
        foreach ($this->workers as $worker) {
            $worker->kill();
        }
        $this->attacker?->close();
        JobsWorkerProcess::closeCallers();
        @\unlink($this->marker);
        @\unlink($this->journal);
    }

    public function testAGadgetPublishedStraightToTheSubjectsIsRefusedUnreadAndLoggedOncePerSource(): void
    {
        [$transport, $config, $worker] = $this->worker(['--durable-slots=1']);
        $attacker = $this->attacker();
        $gadgetTask = JobWire::task(new EncodedTask(EchoTask::class, \str_replace('s:1:"x";', Gadget::payload($this->marker), \serialize(new EchoTask('x'))), 5.0));
        $foreignKey = new JobSigner(new JobKeys(TestJobKeys::another()));

        for ($i = 0; $i < 3; $i++) {
            $attacker->publish($config->awaitedSubject(), $gadgetTask, null, '_INBOX.attacker.' . $i);
        }
        $attacker->publish($config->awaitedSubject(), $foreignKey->sealTask($gadgetTask, '_INBOX.attacker.9', \microtime(true) + 60), null, '_INBOX.attacker.9');
        $attacker->publish($config->durableSubject(), $gadgetTask); // JetStream stores what is published on its subject
        $attacker->flush();

        $worker->waitForLog('/Refused a task on \S+\.durable/');
        self::assertSame('after', JobsWorkerProcess::jobs($transport)->submit(new EchoTask('after'))->await()['value'], 'the job workers still serve');
        self::assertFileDoesNotExist($this->marker, 'a gadget was instantiated');
        $log = $worker->log();
        self::assertSame(1, \substr_count($log, 'Refused a task on ' . $config->awaitedSubject() . ' from reply subject _INBOX.attacker.*: a message of'), $log);
        self::assertSame(0, \substr_count($log, 'from reply subject _INBOX.attacker.*: a message signed with key'), 'the same source is logged once: ' . $log);
        self::assertSame(0, $worker->stop());
        self::assertMatchesRegularExpression('/Stopped after \d+ tasks; 5 messages refused/', $worker->log());
        self::assertStringContainsString('Refused a task on ' . $config->durableSubject() . ' from a publisher on ' . $config->durableSubject() . ' (no reply subject)', $log);
    }

    public function testASignedTaskReplayedAfterItsDeadlineIsRefused(): void
    {
        [, $config, $worker] = $this->worker();
        $attacker = $this->attacker();
        $inbox = '_INBOX.replay.' . \bin2hex(\random_bytes(4));
        $answers = $attacker->subscribe($inbox);
        $task = new EncodedTask(SlowTask::class, \serialize(new SlowTask(77, 0.0, $this->journal)), 5.0);
        $signer = new JobSigner(TestJobKeys::keys());
        $sealed = $signer->sealTask(JobWire::task($task), $inbox, \microtime(true) + 1.0);

        $attacker->publish($config->awaitedSubject(), $sealed, null, $inbox);
        self::assertSame(RemoteReplyKind::Outcome, $this->awaitOutcome($answers, $signer, $task)->kind, 'the original ran');
        $attacker->publish($config->awaitedSubject(), $sealed, null, '_INBOX.thief.1'); // a copy sent to another inbox, in time
        Async::delay(1.2);
        $attacker->publish($config->awaitedSubject(), $sealed, null, $inbox); // the same bytes after the deadline
        $attacker->flush();

        $worker->waitForLog('/past its deadline/');
        $worker->waitForLog('/from reply subject _INBOX\.thief\.\*: a message whose signature does not match/');
        self::assertSame(1, \substr_count((string) \file_get_contents($this->journal), 'start 77 '), 'the task ran once');
    }

    public function testAResultForgedIntoACallersInboxIsIgnoredAndTheRealOneArrives(): void
    {
        [$transport, $config] = $this->worker();
        $attacker = $this->attacker();
        $spy = $attacker->subscribe($config->awaitedSubject()); // anyone may listen: the reply subject shows
        $attacker->flush();
        $before = Refusals::shared()->counts()['unsigned'];
        $warnings = new class () extends AbstractLogger {
            /** @var list<string> */
            public array $lines = [];

            public function log($level, string|\Stringable $message, array $context = []): void
            {
                $this->lines[] = \strtr((string) $message, ['{source}' => (string) ($context['source'] ?? '')]);
            }
        };
        Refusals::shared()->useLogger($warnings);

        $future = JobsWorkerProcess::jobs($transport)->submit(new SlowTask(5, 0.5, $this->journal));
        $inbox = (string) $spy->next(5.0)->replyTo;
        $forged = JobWire::outcome(TaskOutcome::success('a:1:{i:0;' . Gadget::payload($this->marker) . '}', 0.0));
        $attacker->publish($inbox, $forged);
        $attacker->flush();

        self::assertSame(5, $future->await()['id']);
        \gc_collect_cycles();
        self::assertFileDoesNotExist($this->marker);
        self::assertSame($before + 1, Refusals::shared()->counts()['unsigned'], 'counted (bobbin_jobs_refused_messages_total)');
        self::assertStringContainsString('from a publisher on ' . $inbox, \implode("\n", $warnings->lines));
        Refusals::shared()->useLogger(null);
    }

    public function testACallerWithAnotherKeyIsToldWhyAndNothingRuns(): void
    {
        [$transport, , $worker] = $this->worker();
        $stranger = JobsWorkerProcess::jobs($transport, keys: new JobKeys(TestJobKeys::another()));

        try {
            $stranger->submit(new SlowTask(9, 0.0, $this->journal))->await();
            self::fail('a task signed with another key ran');
        } catch (JobWorkersUnavailableException $refused) {
            self::assertStringContainsString('refused its signature: is --jobs-key-file the same on both sides?', $refused->getMessage());
        }
        self::assertMatchesRegularExpression('/Refused a task .*signed with key [0-9a-f]{8}, which is not one of this side\'s/', $worker->log());
        self::assertSame('', (string) \file_get_contents($this->journal));
    }

    public function testDuringAKeyRotationCallersWithEitherKeyAreServed(): void
    {
        $old = TestJobKeys::another();
        $new = TestJobKeys::another();
        [$transport] = $this->worker([], TestJobKeys::file($new, $old));

        $withOldFirst = JobsWorkerProcess::jobs($transport, keys: new JobKeys($old, $new))->submit(new EchoTask('old'))->await();
        $withNewOnly = JobsWorkerProcess::jobs($transport, keys: new JobKeys($new))->submit(new EchoTask('new'))->await();

        self::assertSame(['old', 'new'], [$withOldFirst['value'], $withNewOnly['value']]);
    }

    public function testNeitherTheJobsWorkerNorTheServerStartANatsTransportWithoutAKey(): void
    {
        $url = EmbeddedNats::url();
        [$workerCode, , $workerErr] = BobbinChild::runToCompletion(['jobs-worker', '--transport=' . $url]);
        [$serveCode, , $serveErr] = BobbinChild::runToCompletion(['serve', JobPool::APP, '--listen=127.0.0.1:0', '--jobs-transport=' . $url]);

        self::assertSame(2, $workerCode, $workerErr);
        self::assertStringContainsString('A nats:// --transport needs a key: anyone who can publish on its subjects could otherwise run code in the job workers', $workerErr);
        self::assertSame(2, $serveCode, $serveErr);
        self::assertStringContainsString('A nats:// --jobs-transport needs a key', $serveErr);
        self::assertStringContainsString('--jobs-key-file=FILE', $serveErr);
    }

    /**
     * A jobs-worker of its own on fresh subjects.
     *
     * @param list<string> $options
     * @return array{string, NatsJobsConfig, JobsWorkerProcess}
     */
    private function worker(array $options = [], string $keyFile = ''): array
    {
        $tag = \bin2hex(\random_bytes(4));
        $transport = EmbeddedNats::url() . "?subject=secure.$tag&stream=SECURE$tag&heartbeat=0.2&unavailable_after=1";
        $options = ['--job-workers=1', '--durable-slots=0', ...$options];
        if ($keyFile !== '') {
            $options[] = '--jobs-key-file=' . $keyFile;
        }
        $this->workers[] = $worker = new JobsWorkerProcess($transport, $options);

        return [$transport, NatsJobsConfig::fromUrl($transport), $worker];
    }

    private function attacker(): Connection
    {
        return $this->attacker ??= Connection::connect(EmbeddedNats::url());
    }

    private function awaitOutcome(\Bobbin\Nats\Subscription $answers, JobSigner $signer, EncodedTask $task): \Bobbin\Jobs\Nats\RemoteReply
    {
        while (true) {
            $reply = RemoteWire::decodeReply($signer->openReply($task->id, $answers->next(5.0)->payload));
            if ($reply->kind !== RemoteReplyKind::Alive && $reply->kind !== RemoteReplyKind::Started) {
                return $reply;
            }
        }
    }
}
