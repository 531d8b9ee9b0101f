<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Log;

use Bobbin\Log\StderrLogger;
use PHPUnit\Framework\TestCase;

/** One line per record; exceptions follow with their chain and traces. */
final class StderrLoggerTest extends TestCase
{
    private static function logged(callable $write): string
    {
        $stream = \fopen('php://memory', 'w+');
        \assert($stream !== false);
        $write(new StderrLogger('info', $stream));
        \rewind($stream);

        return (string) \stream_get_contents($stream);
    }

    public function testPlaceholdersAreReplacedAndLineBreaksFlattened(): void
    {
        $written = self::logged(static fn (StderrLogger $l) => $l->warning("a {x}\nb", ['x' => 'y']));

        self::assertMatchesRegularExpression('/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \[warning\] a y b\n$/D', $written);
    }

    public function testRecordsBelowTheMinimumLevelAreDropped(): void
    {
        self::assertSame('', self::logged(static fn (StderrLogger $l) => $l->debug('quiet')));
    }

    public function testAnExceptionIsFollowedByItsWholeChainWithTraces(): void
    {
        $error = new \RuntimeException("outer\nline", 0, new \InvalidArgumentException('inner'));
        $written = self::logged(static fn (StderrLogger $l) => $l->error('failed', ['exception' => $error]));
        $lines = \explode("\n", \trim($written));

        self::assertStringContainsString('[error] failed', $lines[0]);
        self::assertSame('    RuntimeException: outer line in ' . __FILE__ . ':' . $error->getLine(), $lines[1]);
        self::assertStringStartsWith('        #0 ', $lines[2]);
        self::assertStringContainsString('    caused by InvalidArgumentException: inner in ' . __FILE__, $written);
        self::assertSame(2, \substr_count($written, '        #0 '));
    }
}
