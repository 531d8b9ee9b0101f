<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async\Loop\Epoll;

use Bobbin\Async\Async;
use Bobbin\Async\Loop\EpollPoller;
use Bobbin\Async\Loop\Poller;
use Bobbin\Async\Loop\StreamDescriptors;
use Bobbin\Tests\Unit\Async\Loop\DriverTestCase;

/**
 * epoll has no FD_SETSIZE: a stream numbered above 1024 is waited on like any other, and only
 * the process's open-files limit bounds how many a worker holds.
 */
final class EpollDescriptorsTest extends DriverTestCase
{
    /** @var list<resource> */
    private array $filler = [];
    /** @var array{int, int}|null the soft and hard RLIMIT_NOFILE before the test raised them */
    private ?array $limitBefore = null;

    protected static function createPoller(): Poller
    {
        return EpollPoller::create();
    }

    protected function tearDown(): void
    {
        foreach ($this->filler as $file) {
            \fclose($file);
        }
        $this->filler = [];
        parent::tearDown();
        if ($this->limitBefore !== null) {
            \posix_setrlimit(\POSIX_RLIMIT_NOFILE, ...$this->limitBefore);
        }
    }

    public function testTheDriverSetsNoDescriptorCeilingOfItsOwn(): void
    {
        self::assertNull($this->bobbin()->descriptorCeiling());
        self::assertNull(Async::descriptorCeiling());
    }

    public function testStreamsNumberedAbove1024AreWaitedOnBesideTheLowOnes(): void
    {
        $driver = $this->bobbin();
        [$lowReader, $lowWriter] = self::socketPair();
        $this->openDescriptorsUpTo(1100);
        [$highReader, $highWriter] = self::socketPair();
        self::assertGreaterThan(1024, StreamDescriptors::instance()->numberOf($highReader));

        $outcomes = [];
        foreach (['high' => $highReader, 'low' => $lowReader] as $name => $reader) {
            $driver->queue(function () use ($driver, $name, $reader, &$outcomes): void {
                $driver->waitReadable($reader, $this->suspension());
                $outcomes[$name] = \fread($reader, 10);
            });
        }
        $callbackRead = null;
        $driver->onReadable($highReader, static function (string $id) use ($driver, &$callbackRead): void {
            $callbackRead = 'called';
            $driver->cancel($id);
        });
        $driver->delay(0.01, static function () use ($lowWriter, $highWriter): void {
            \fwrite($lowWriter, 'low');
            \fwrite($highWriter, 'high');
        });

        $driver->run();

        self::assertSame('high', $outcomes['high'] ?? null);
        self::assertSame('low', $outcomes['low'] ?? null);
        self::assertSame('called', $callbackRead);
    }

    public function testIsReadableNowAnswersForAStreamNumberedAbove1024(): void
    {
        $this->openDescriptorsUpTo(1100);
        [$reader, $writer] = self::socketPair();
        self::assertGreaterThan(1024, StreamDescriptors::instance()->numberOf($reader));

        self::assertFalse(Async::isReadableNow($reader), 'nothing sent yet');
        \fwrite($writer, 'x');
        self::assertTrue(Async::isReadableNow($reader), 'data');
        \fread($reader, 1);
        self::assertFalse(Async::isReadableNow($reader), 'data read');
        \fclose($writer);
        self::assertTrue(Async::isReadableNow($reader), 'end of stream');
    }

    private function openDescriptorsUpTo(int $count): void
    {
        $limits = \posix_getrlimit();
        self::assertIsArray($limits);
        $soft = $limits['soft openfiles'];
        $hard = $limits['hard openfiles'];
        if (\is_numeric($soft) && (int) $soft < $count + 16) {
            if (\is_numeric($hard) && (int) $hard < $count + 16) {
                self::markTestSkipped(\sprintf('the hard open-files limit (%d) is below %d', $hard, $count + 16));
            }
            $this->limitBefore = [(int) $soft, \is_numeric($hard) ? (int) $hard : \POSIX_RLIMIT_INFINITY];
            self::assertTrue(\posix_setrlimit(\POSIX_RLIMIT_NOFILE, $count + 16, $this->limitBefore[1]));
        }
        $open = \count((array) \scandir('/proc/self/fd'));
        for ($i = $open; $i < $count; $i++) {
            $file = \fopen('/dev/null', 'r');
            self::assertIsResource($file);
            $this->filler[] = $file;
        }
    }
}
