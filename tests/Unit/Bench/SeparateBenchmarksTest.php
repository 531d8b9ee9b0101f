<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Bench;

use Bobbin\Bench\Report\MarkdownReport;
use PHPUnit\Framework\TestCase;

require_once \dirname(__DIR__, 3) . '/bench/lib/autoload.php';

/** Regenerating BENCHMARKS.md's block of separate benchmarks keeps the entries no document is the source of. */
final class SeparateBenchmarksTest extends TestCase
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

    public function testEntriesWrittenByHandSurviveARegenerationAndGeneratedOnesAreNotRepeated(): void
    {
        $this->root = \sys_get_temp_dir() . '/bobbin-bench-doc-' . \bin2hex(\random_bytes(4));
        \mkdir($this->root . '/docs', 0777, true);
        \file_put_contents($this->root . '/docs/BENCHMARKS.md', \implode("\n", [
            '# Benchmarks', '',
            '## Benchmarks with their own commands', '', 'Intro.', '',
            '### Generated one — `cmd`', '', 'old figures', '',
            '### Static files by hand — `php bench/static/run.php`', '', '| a | b |', '', 'more', '',
            '### Another by hand — `x`', '', 'text', '',
            '## Adding experiments and peers', '', 'tail', '',
        ]));

        $kept = MarkdownReport::handWrittenEntries($this->root, ['### Generated one — ']);

        self::assertSame([
            '### Static files by hand — `php bench/static/run.php`', '', '| a | b |', '', 'more', '',
            '### Another by hand — `x`', '', 'text', '',
        ], $kept);
    }

    public function testTheRealDocumentKeepsEveryEntryThroughARegeneration(): void
    {
        $root = \dirname(__DIR__, 3);
        $text = (string) \file_get_contents($root . '/docs/BENCHMARKS.md');
        $block = \explode('## Adding experiments and peers', \explode("\n## Benchmarks with their own commands\n", $text, 2)[1] ?? '', 2)[0];
        \preg_match_all('/^### (.+)$/m', $block, $before);

        $after = \implode("\n", MarkdownReport::separateBenchmarks($root));
        \preg_match_all('/^### (.+)$/m', $after, $regenerated);

        self::assertSame([], \array_values(\array_diff($before[1], $regenerated[1])), 'no entry lost');
        self::assertSame(\count($regenerated[1]), \count(\array_unique($regenerated[1])), 'no entry twice');
    }
}
