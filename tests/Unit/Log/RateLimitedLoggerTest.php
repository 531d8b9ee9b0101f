<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Log;

use Bobbin\Async\Async;
use Bobbin\Log\RateLimitedLogger;
use Bobbin\Log\StderrLogger;
use PHPUnit\Framework\TestCase;

/** Repeated records are counted, not written; stack traces go out once per distinct error. */
final class RateLimitedLoggerTest extends TestCase
{
    /** @var resource */
    private $stream;

    protected function setUp(): void
    {
        $stream = \fopen('php://memory', 'w+');
        \assert($stream !== false);
        $this->stream = $stream;
    }

    private function written(): string
    {
        \rewind($this->stream);

        return (string) \stream_get_contents($this->stream);
    }

    private function logger(float $window = 5.0): RateLimitedLogger
    {
        return new RateLimitedLogger(new StderrLogger('debug', $this->stream), $window);
    }

    private static function failure(string $message): \RuntimeException
    {
        return new \RuntimeException($message, 0, new \LogicException('the cause'));
    }

    public function testTheSameErrorRepeatedIsWrittenOnceAndSummarisedWithItsCount(): void
    {
        $logger = $this->logger();
        $error = self::failure('database down');
        for ($i = 0; $i < 1532; $i++) {
            $logger->error('Database failure on {path}: {message}', ['path' => '/a' . $i, 'message' => $error->getMessage(), 'exception' => $error]);
        }
        $logger->flush(\INF);

        $lines = \array_values(\array_filter(\explode("\n", $this->written()), static fn (string $l): bool => \str_contains($l, '[error]')));
        self::assertCount(2, $lines);
        self::assertStringContainsString('Database failure on /a0: database down', $lines[0]);
        self::assertMatchesRegularExpression('/Database failure on \/a0: database down … repeated 1,531 more time\(s\) in \d+\.\d s$/', $lines[1]);
    }

    public function testDifferentMessagesAndLevelsAreNotTakenForRepeats(): void
    {
        $logger = $this->logger();
        $logger->warning('one');
        $logger->warning('two');
        $logger->error('one');
        $logger->error('refused {header}', ['header' => 'X-A']);
        $logger->error('refused {header}', ['header' => 'X-B']);

        self::assertSame(5, \substr_count($this->written(), "\n"));
    }

    public function testTheFirstRecordAfterTheWindowGoesOutAgainAfterTheSummary(): void
    {
        $logger = $this->logger(0.05);
        $logger->warning('flapping');
        $logger->warning('flapping');
        \usleep(60000);
        $logger->warning('flapping');

        $written = $this->written();
        self::assertSame(2, \substr_count($written, "flapping\n"));
        self::assertSame(1, \substr_count($written, 'repeated 1 more time(s)'));
    }

    public function testASummaryIsWrittenByTheLoopEvenWhenNoFurtherRecordComes(): void
    {
        $logger = $this->logger(0.05);
        $logger->warning('burst');
        $logger->warning('burst');
        Async::delay(0.15);

        self::assertStringContainsString('burst … repeated 1 more time(s) in 0.1 s', \str_replace('0.0 s', '0.1 s', $this->written()));
    }

    public function testTheTraceOfAnErrorIsWrittenOnceAndLaterRecordsSayItWas(): void
    {
        $logger = $this->logger(0.01);
        $error = self::failure('once');
        $logger->error('failed', ['exception' => $error]);
        \usleep(20000);
        $logger->error('failed again', ['exception' => $error]);

        $written = $this->written();
        self::assertSame(2, \substr_count($written, 'RuntimeException: once in ' . __FILE__));
        self::assertSame(2, \substr_count($written, 'caused by LogicException: the cause'));
        self::assertSame(2, \substr_count($written, '#0 '), 'Each exception of the chain has its trace exactly once');
        self::assertStringContainsString('(the stack trace of this error was logged before)', $written);
    }

    public function testTheSummaryNamesTheRequestsOfTheRepeatsItStandsFor(): void
    {
        $logger = $this->logger();
        $error = self::failure('database down');
        for ($i = 0; $i < 5; $i++) {
            $logger->error('Failed (request {request_id}): {message}', ['request_id' => 'r' . $i, 'message' => $error->getMessage(), 'exception' => $error]);
        }
        $logger->flush(\INF);

        $lines = \array_values(\array_filter(\explode("\n", $this->written()), static fn (string $l): bool => \str_contains($l, '[error]')));
        self::assertCount(2, $lines);
        self::assertStringContainsString('Failed (request r0): database down', $lines[0]);
        self::assertMatchesRegularExpression('/repeated 4 more time\(s\) in \d+\.\d s, for the requests r1, r2, r3, r4$/', $lines[1]);
    }

    public function testRecordsThatDifferOnlyInTheirRequestIdAreRepeats(): void
    {
        $logger = $this->logger();
        for ($i = 0; $i < 250; $i++) {
            $logger->warning('GET /slow (request {request_id}) still running', ['request_id' => 'r' . $i]);
        }
        $logger->flush(\INF);

        $written = $this->written();
        self::assertSame(2, \substr_count($written, 'still running'), 'a request id alone does not make a record new');
        self::assertStringContainsString('repeated 249 more time(s)', $written);
        self::assertStringContainsString('r1, r2, ', $written);
        self::assertStringEndsWith(', r100 and 149 more' . "\n", $written, 'the summary names a bounded number of requests');
    }
}
