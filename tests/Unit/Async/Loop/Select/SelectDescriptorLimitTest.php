<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async\Loop\Select;

use Bobbin\Async\Async;
use Bobbin\Async\Loop\DescriptorLimitException;
use Bobbin\Async\Loop\Poller;
use Bobbin\Async\Loop\SelectPoller;
use Bobbin\Tests\Unit\Async\Loop\DriverTestCase;

/**
 * stream_select() cannot watch descriptors numbered 1024 or above. One such stream must fail only
 * its own waits; the loop and every other stream go on.
 */
final class SelectDescriptorLimitTest extends DriverTestCase
{
    /** @var list<resource> */
    private array $filler = [];

    protected static function createPoller(): Poller
    {
        return new SelectPoller();
    }

    protected function tearDown(): void
    {
        foreach ($this->filler as $file) {
            \fclose($file);
        }
        $this->filler = [];
        parent::tearDown();
    }

    public function testTheDescriptorCeilingIsWhatSelectCanWatch(): void
    {
        self::assertSame(1024, $this->bobbin()->descriptorCeiling());
        self::assertSame(1024, Async::descriptorCeiling());
    }

    public function testAWaitOnADescriptorAboveTheLimitFailsAndTheLoopServesTheOthers(): void
    {
        [$lowReader, $lowWriter] = self::socketPair();
        $this->fillDescriptorsUpTo(1030);
        [$highReader, $highWriter] = self::socketPair();
        $driver = $this->bobbin();

        $outcomes = [];
        $driver->queue(function () use ($driver, $highReader, &$outcomes): void {
            try {
                $driver->waitReadable($highReader, $this->suspension());
                $outcomes['high'] = 'woke';
            } catch (DescriptorLimitException $e) {
                $outcomes['high'] = $e->getMessage();
            }
        });
        $driver->queue(function () use ($driver, $lowReader, &$outcomes): void {
            $driver->waitReadable($lowReader, $this->suspension());
            $outcomes['low'] = \fread($lowReader, 10);
        });
        $driver->delay(0.01, static function () use ($lowWriter, $highWriter): void {
            \fwrite($lowWriter, 'low');
            \fwrite($highWriter, 'high');
        });

        $driver->run();

        self::assertSame('low', $outcomes['low'] ?? null);
        self::assertStringContainsString('FD_SETSIZE', (string) ($outcomes['high'] ?? ''));
    }

    public function testAReadableCallbackOnADescriptorAboveTheLimitIsReportedAndDisabled(): void
    {
        [$lowReader, $lowWriter] = self::socketPair();
        $this->fillDescriptorsUpTo(1030);
        [$highReader] = self::socketPair();
        $driver = $this->bobbin();
        $errors = [];
        $driver->setErrorHandler(static function (\Throwable $e) use (&$errors): void {
            $errors[] = $e::class;
        });

        $highId = $driver->onReadable($highReader, static fn () => null);
        $lowCalls = 0;
        $driver->onReadable($lowReader, static function (string $id) use (&$lowCalls, $driver, $lowReader): void {
            $lowCalls++;
            \fread($lowReader, 10);
            $driver->cancel($id);
        });
        \fwrite($lowWriter, 'x');

        $driver->run();

        self::assertSame([DescriptorLimitException::class], $errors);
        self::assertFalse($driver->isEnabled($highId));
        self::assertSame(1, $lowCalls);
    }

    private function fillDescriptorsUpTo(int $count): void
    {
        $open = \count((array) \scandir('/proc/self/fd'));
        for ($i = $open; $i < $count; $i++) {
            $file = \fopen('/dev/null', 'r');
            if ($file === false) {
                self::markTestSkipped('cannot open enough files (ulimit -n) to pass descriptor 1024');
            }
            $this->filler[] = $file;
        }
    }
}
