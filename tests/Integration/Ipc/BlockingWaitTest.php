<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Ipc;

use Bobbin\Async\TimeoutCancellation;
use Bobbin\Async\TimeoutException;
use Bobbin\Tests\Support\Ipc\ByteFrequency;
use Bobbin\Tests\Support\Ipc\Channels;
use Bobbin\Tests\Support\Ipc\DaemonTestCase;
use PHPUnit\Framework\Attributes\DataProvider;

/** A plain script's request (no fiber, nothing else on the loop) waiting for a slow daemon. */
final class BlockingWaitTest extends DaemonTestCase
{
    #[DataProvider('channels')]
    public function testALoneBlockingCallerWaitsForALateAnswer(string $channel): void
    {
        $client = Channels::client($channel, $this->daemon);
        $client->request('warm up');
        $this->daemon->signal(\SIGSTOP);
        $this->continueDaemonAfter(0.2);

        $started = \microtime(true);
        $answer = $client->request('answered late');

        self::assertSame(ByteFrequency::expected('answered late'), $answer);
        self::assertGreaterThan(0.15, \microtime(true) - $started);
        $client->close();
    }

    #[DataProvider('channels')]
    public function testATimeoutEndsABlockingCallersWaitOnAStoppedDaemon(string $channel): void
    {
        // The timer of a TimeoutCancellation does not keep the loop busy: a caller that slept
        // in place because the loop looked idle would never see it fire.
        $client = Channels::client($channel, $this->daemon);
        $client->request('warm up');
        $this->daemon->signal(\SIGSTOP);
        $this->continueDaemonAfter(5.0); // a hang shows as a late answer, not a stuck suite

        $started = \microtime(true);
        try {
            $client->request('never answered in time', new TimeoutCancellation(0.3));
            self::fail('The request was answered although the daemon was stopped');
        } catch (TimeoutException) {
            self::assertLessThan(2.0, \microtime(true) - $started);
        } finally {
            $this->daemon->signal(\SIGCONT);
            $client->close();
        }
    }

    private function continueDaemonAfter(float $seconds): void
    {
        \exec(\sprintf('(sleep %.3f; kill -CONT %d) >/dev/null 2>&1 &', $seconds, $this->daemon->pid));
    }
}
