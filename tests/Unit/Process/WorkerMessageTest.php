<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Process;

use Bobbin\Process\WorkerMessage;
use Bobbin\Process\WorkerStats;
use PHPUnit\Framework\TestCase;

final class WorkerMessageTest extends TestCase
{
    public function testEveryMessageIsOneJsonLineThatDecodesToItself(): void
    {
        $messages = [
            WorkerMessage::ready(),
            WorkerMessage::bootFailed("APP_FILE x failed:\nsecond line", 2),
            WorkerMessage::stats(new WorkerStats(123, 1700000000.25, 42, 3, 4194304, 7)),
            WorkerMessage::retiring('served 1000 requests'),
        ];
        foreach ($messages as $message) {
            $line = $message->encode();

            self::assertStringEndsWith("\n", $line);
            self::assertSame(1, \substr_count($line, "\n"));
            self::assertEquals($message, WorkerMessage::decode(\rtrim($line, "\n")));
        }
    }

    public function testStatsCarryWhatTheStatusCommandShows(): void
    {
        $line = WorkerMessage::stats(new WorkerStats(123, 1700000000.25, 42, 3, 4194304, 7))->encode();

        $stats = WorkerStats::fromMessage((WorkerMessage::decode(\rtrim($line))) ?? self::fail('no message'), 123, 0.0);

        self::assertEquals(new WorkerStats(123, 1700000000.25, 42, 3, 4194304, 7), $stats);
    }

    public function testALineThatIsNoMessageIsIgnored(): void
    {
        self::assertNull(WorkerMessage::decode('not json'));
        self::assertNull(WorkerMessage::decode('{"no":"type"}'));
        self::assertNull(WorkerMessage::decode('[1,2]'));
    }

    public function testFieldsOfTheWrongTypeFallBackToDefaults(): void
    {
        $message = WorkerMessage::decode('{"type":"boot-failed","message":["x"],"exitCode":"two"}');

        self::assertNotNull($message);
        self::assertSame('fallback', $message->string('message', 'fallback'));
        self::assertSame(1, $message->int('exitCode', 1));
    }
}
