<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Bench;

use Bobbin\Bench\ProcessTree;
use PHPUnit\Framework\TestCase;

require_once \dirname(__DIR__, 3) . '/bench/lib/ProcessTree.php';

/** The benchmark's memory figure: the pages a set of processes occupies, each counted once. */
final class ResidentMemoryTest extends TestCase
{
    /** @var list<resource> */
    private array $children = [];

    protected function setUp(): void
    {
        if (ProcessTree::residentKb([\getmypid()]) === null) {
            self::markTestSkipped('frame numbers in /proc/PID/pagemap are visible to root only');
        }
    }

    protected function tearDown(): void
    {
        foreach ($this->children as $child) {
            \proc_terminate($child);
            \proc_close($child);
        }
    }

    public function testOneProcessOccupiesItsResidentSetSize(): void
    {
        $pid = $this->startHolding(8);

        $resident = ProcessTree::residentKb([$pid]);

        self::assertEqualsWithDelta(self::rssKb($pid), $resident, 64.0);
    }

    public function testPagesSharedByTwoProcessesCountOnce(): void
    {
        $first = $this->startHolding(8);
        $second = $this->startHolding(8);

        $together = ProcessTree::residentKb([$first, $second]);

        // The PHP binary and its libraries are mapped by both: counted once, the set is smaller
        // than the two resident sets added up; each one's private 8 MiB still counts.
        self::assertLessThan(self::rssKb($first) + self::rssKb($second) - 1024, $together);
        self::assertGreaterThan(\max(self::rssKb($first), self::rssKb($second)) + 7 * 1024, $together);
    }

    public function testMemoryAProcessWritesIsCounted(): void
    {
        $small = ProcessTree::residentKb([$this->startHolding(1)]);
        $large = ProcessTree::residentKb([$this->startHolding(33)]);

        self::assertEqualsWithDelta(32 * 1024, $large - $small, 2 * 1024);
    }

    /** A PHP process that writes $mib MiB of its own and waits; its PID once it is ready. */
    private function startHolding(int $mib): int
    {
        $code = \sprintf('$held = str_repeat("x", %d); echo "ready\n"; fgets(STDIN);', $mib << 20);
        $child = \proc_open([\PHP_BINARY, '-n', '-d', 'memory_limit=-1', '-r', $code], [0 => ['pipe', 'r'], 1 => ['pipe', 'w']], $pipes);
        self::assertIsResource($child);
        $this->children[] = $child;
        self::assertSame("ready\n", \fgets($pipes[1]));

        return \proc_get_status($child)['pid'];
    }

    private static function rssKb(int $pid): int
    {
        $rollup = (string) \file_get_contents("/proc/$pid/smaps_rollup");
        self::assertSame(1, \preg_match('~^Rss:\s+(\d+) kB~m', $rollup, $m));

        return (int) $m[1];
    }
}
