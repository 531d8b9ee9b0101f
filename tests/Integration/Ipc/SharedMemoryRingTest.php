<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Ipc;

use Bobbin\Async\Async;
use Bobbin\Async\Future;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Ipc\IpcException;
use Bobbin\Ipc\ShmClient;
use Bobbin\Tests\Support\Ipc\ByteFrequency;
use Bobbin\Tests\Support\Ipc\DaemonTestCase;

final class SharedMemoryRingTest extends DaemonTestCase
{
    public function testSmallRingsWrapAroundManyTimesWithoutLosingARecord(): void
    {
        $client = new ShmClient($this->daemon->socketPath, 8192);
        for ($i = 0; $i < 500; $i++) {
            $payload = \str_repeat(\chr($i % 256), ($i * 37) % 2049) . \pack('n', $i);
            self::assertSame(ByteFrequency::expected($payload), $client->request($payload), "request $i");
        }
        $client->close();
    }

    public function testFibersThatOverfillTheRequestRingWaitForSpace(): void
    {
        // 100 fibers x 2 KiB in flight do not fit an 8 KiB ring at once.
        $client = new ShmClient($this->daemon->socketPath, 8192);
        $futures = [];
        for ($f = 0; $f < 100; $f++) {
            $futures[] = Async::run(static function () use ($client, $f): bool {
                $payload = \str_repeat(\chr($f), 2000) . \pack('N', $f);

                return $client->request($payload) === ByteFrequency::expected($payload);
            });
        }
        $timeout = new TimeoutCancellation(20.0);
        self::assertSame(\array_fill(0, 100, true), Future::awaitAll($futures, $timeout));
        $timeout->dispose();
        $client->close();
    }

    public function testAThousandFibersShareOneSharedMemoryConnection(): void
    {
        self::assertEveryFiberGetsItsAnswers(new ShmClient($this->daemon->socketPath), 1000, 10);
    }

    public function testACrowdIsServedInPartsWhenTheDaemonRunsOnAnotherCpu(): void
    {
        // The client then hands each tick's batch over in parts as it grows (~136 KiB here).
        if ((int) \shell_exec('nproc') < 2) {
            self::markTestSkipped('needs two CPUs');
        }
        $this->daemon->pinTo(1);
        $mask = self::affinityOf(\getmypid());
        \exec(\sprintf('taskset -p -c 0 %d', \getmypid()));
        try {
            self::assertEveryFiberGetsItsAnswers(new ShmClient($this->daemon->socketPath), 1000, 5);
        } finally {
            \exec(\sprintf('taskset -p %s %d', $mask, \getmypid()));
        }
    }

    /** $fibers fibers send $each requests each over $client; every answer must be right. */
    private static function assertEveryFiberGetsItsAnswers(ShmClient $client, int $fibers, int $each): void
    {
        $futures = [];
        for ($f = 0; $f < $fibers; $f++) {
            $futures[] = Async::run(static function () use ($client, $f, $each): int {
                $ok = 0;
                for ($i = 0; $i < $each; $i++) {
                    $payload = \pack('NN', $f, $i) . \str_repeat(\chr(($f + $i) % 256), 120);
                    $ok += (int) ($client->request($payload) === ByteFrequency::expected($payload));
                }

                return $ok;
            });
        }
        $timeout = new TimeoutCancellation(30.0);
        self::assertSame($fibers * $each, \array_sum(Future::awaitAll($futures, $timeout)));
        $timeout->dispose();
        $client->close();
    }

    /** The affinity mask of $pid as taskset prints it (hex). */
    private static function affinityOf(int $pid): string
    {
        $line = (string) \shell_exec(\sprintf('taskset -p %d', $pid));
        if (\preg_match('/mask: ([0-9a-f]+)/', $line, $m) !== 1) {
            self::fail("cannot read the affinity of $pid: $line");
        }

        return $m[1];
    }

    public function testAPayloadLargerThanTheRingIsRefusedAndTheChannelStaysUsable(): void
    {
        $client = new ShmClient($this->daemon->socketPath, 8192);
        self::assertSame(ByteFrequency::expected('small'), $client->request('small'));
        try {
            $client->request(\str_repeat('x', 9000));
            self::fail('An oversized payload was accepted');
        } catch (IpcException $e) {
            self::assertStringContainsString('does not fit', $e->getMessage());
        }
        self::assertSame(ByteFrequency::expected('small again'), $client->request('small again'));
        $client->close();
    }

    public function testTheDaemonReleasesTheSegmentWhenTheClientLeaves(): void
    {
        $client = new ShmClient($this->daemon->socketPath, 8192);
        $client->request('map it');
        self::assertSame(1, $this->segmentsMappedByTheDaemon(), 'mapped while the client is connected');
        $client->close();
        $deadline = \microtime(true) + 5.0;
        while ($this->segmentsMappedByTheDaemon() > 0 && \microtime(true) < $deadline) {
            Async::delay(0.01);
        }
        self::assertSame(0, $this->segmentsMappedByTheDaemon(), 'unmapped after the client left');
        self::assertSame([], \glob('/dev/shm/bobbin-ipc-*-' . $this->daemon->pid . '-*') ?: []);
    }

    /** @phpstan-impure */
    private function segmentsMappedByTheDaemon(): int
    {
        $maps = (string) \file_get_contents("/proc/{$this->daemon->pid}/maps");

        return \preg_match_all('~/dev/shm/bobbin-ipc-~', $maps);
    }
}
