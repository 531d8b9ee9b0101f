<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Ipc;

use Bobbin\Ipc\ShmClient;
use Bobbin\Tests\Support\Ipc\Channels;
use Bobbin\Tests\Support\Ipc\DaemonTestCase;
use PHPUnit\Framework\Attributes\DataProvider;

/**
 * A closed connection frees its resources at once, by reference counting: nothing of it waits
 * for a run of the cycle collector (a reconnect-heavy client would otherwise pile up mappings).
 */
final class ConnectionReleaseTest extends DaemonTestCase
{
    protected function setUp(): void
    {
        parent::setUp();
        \gc_collect_cycles();
        \gc_disable();
    }

    protected function tearDown(): void
    {
        \gc_enable();
        parent::tearDown();
    }

    public function testClosingASharedMemoryClientUnmapsItsSegmentWithoutTheCycleCollector(): void
    {
        $before = self::mappedSegments();
        $client = new ShmClient($this->daemon->socketPath, 64 * 1024);
        $client->request('hello');
        self::assertSame($before + 1, self::mappedSegments());

        $client->close();

        self::assertSame($before, self::mappedSegments());
    }

    public function testReconnectingAHundredTimesLeavesNoMappingBehind(): void
    {
        $before = self::mappedSegments();
        $client = new ShmClient($this->daemon->socketPath, 64 * 1024);
        for ($i = 0; $i < 100; $i++) {
            self::assertSame(1, \strlen($client->request("request $i")));
            $client->close();
        }

        self::assertSame($before, self::mappedSegments());
    }

    /** @return array<string, array{string}> */
    public static function socketChannels(): array
    {
        return ['unix socket' => ['unix'], 'tcp' => ['tcp']];
    }

    #[DataProvider('socketChannels')]
    public function testReconnectingAHundredTimesLeavesNoDescriptorOpen(string $channel): void
    {
        $client = Channels::client($channel, $this->daemon);
        $client->request('first');
        $client->close();
        $before = \count((array) \scandir('/proc/self/fd'));
        for ($i = 0; $i < 100; $i++) {
            self::assertSame(1, \strlen($client->request("request $i")));
            $client->close();
        }

        self::assertSame($before, \count((array) \scandir('/proc/self/fd')));
    }

    /** Mappings of this process's shared-memory segments (their names are unlinked once mapped). */
    private static function mappedSegments(): int
    {
        return \substr_count((string) \file_get_contents('/proc/self/maps'), '/bobbin-ipc-');
    }
}
