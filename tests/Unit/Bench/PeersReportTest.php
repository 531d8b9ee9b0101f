<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Bench;

use Bobbin\Bench\Report\DocSection;
use Bobbin\Bench\Results;
use Bobbin\Bench\Sample;
use PHPUnit\Framework\TestCase;

require_once \dirname(__DIR__, 3) . '/bench/lib/autoload.php';

/** The two pieces `bench/run peers` reports with: per-round ratios and its one entry of BENCHMARKS.md. */
final class PeersReportTest extends TestCase
{
    private string $root = '';

    protected function tearDown(): void
    {
        if ($this->root !== '') {
            \array_map('unlink', \glob($this->root . '/docs/*') ?: []);
            @\rmdir($this->root . '/docs');
            @\rmdir($this->root);
        }
    }

    public function testARoundRatioIsTheMedianOfTheRatiosTakenWithinEachRound(): void
    {
        $results = new Results('test');
        // Round 2 is slow for both: the ratio of medians (12/6 = 2) and the median of the
        // per-round ratios (1.5) differ, and the report wants the latter.
        foreach ([[1, 10.0, 5.0], [2, 30.0, 30.0], [3, 12.0, 6.0], [4, 15.0, 10.0]] as [$round, $a, $b]) {
            $results->add(new Sample('peers', 'a', 'cpu', 'µs', $round, $a, false));
            $results->add(new Sample('peers', 'b', 'cpu', 'µs', $round, $b, false));
        }

        self::assertEqualsWithDelta(1.75, $results->roundRatio('peers', 'a', 'b', 'cpu'), 1e-9);
    }

    public function testARoundRatioLeavesOutRoundsMissingOnEitherSide(): void
    {
        $results = new Results('test');
        $results->add(new Sample('peers', 'a', 'cpu', 'µs', 1, 10.0, false));
        $results->add(new Sample('peers', 'b', 'cpu', 'µs', 1, 5.0, false));
        $results->add(new Sample('peers', 'a', 'cpu', 'µs', 2, 99.0, false));

        self::assertSame(2.0, $results->roundRatio('peers', 'a', 'b', 'cpu'));
        self::assertNull($results->roundRatio('peers', 'a', 'missing', 'cpu'));
    }

    public function testSplicingOneSeparateBenchmarkReplacesOnlyItsOwnEntry(): void
    {
        $this->root = \sys_get_temp_dir() . '/bobbin-peers-report-' . \getmypid();
        \mkdir($this->root . '/docs', 0777, true);
        \file_put_contents($this->root . '/docs/HTTP.md', "# HTTP\n\n## Peers, measured\n\nfigures v1\n\n## Next\n\nother\n");
        $benchmarks = "# Benchmarks\n\n## Benchmarks with their own commands\n\nintro\n\n### Hand-written entry — `x`\n\nkept as it is\n\n## Adding experiments and peers\n\ntail\n";
        \file_put_contents($this->root . '/docs/BENCHMARKS.md', $benchmarks);

        DocSection::spliceBenchmark($this->root, 'Peers', 'docs/HTTP.md', '## Peers, measured', 'bench/run peers');
        \file_put_contents($this->root . '/docs/HTTP.md', "# HTTP\n\n## Peers, measured\n\nfigures v2\n\n## Next\n\nother\n");
        DocSection::spliceBenchmark($this->root, 'Peers', 'docs/HTTP.md', '## Peers, measured', 'bench/run peers');

        $text = (string) \file_get_contents($this->root . '/docs/BENCHMARKS.md');
        self::assertStringContainsString("### Hand-written entry — `x`\n\nkept as it is\n", $text);
        self::assertSame(1, \substr_count($text, '### Peers — `bench/run peers`'));
        self::assertStringContainsString('figures v2', $text);
        self::assertStringNotContainsString('figures v1', $text);
        self::assertStringNotContainsString('other', $text);
        self::assertStringEndsWith("## Adding experiments and peers\n\ntail\n", $text);
    }
}
