<?php

declare(strict_types=1);

namespace Bobbin\Bench\Report;

/**
 * Writes a benchmark's figures into the "## … measured" section of the document that explains
 * them, and copies every such section into docs/BENCHMARKS.md's "Benchmarks with their own
 * commands" (MarkdownReport::separateBenchmarks()), so that the two places never disagree and
 * a full `bench/run` keeps them.
 */
final class DocSection
{
    private const SEPARATE = '## Benchmarks with their own commands';
    private const AFTER_SEPARATE = '## Adding experiments and peers';

    private function __construct()
    {
    }

    /** Replaces the section under $heading in $path (appended when missing) with $body. */
    public static function write(string $path, string $heading, string $body): void
    {
        $text = (string) \file_get_contents($path);
        $section = "\n$heading\n\n" . \rtrim($body) . "\n";
        $start = \strpos($text, "\n$heading\n");
        if ($start === false) {
            $text = \rtrim($text) . "\n" . $section;
        } else {
            $end = \strpos($text, "\n## ", $start + 1);
            $text = \substr($text, 0, $start) . $section . ($end === false ? '' : "\n" . \substr($text, $end + 1));
        }
        \file_put_contents($path, $text);
    }

    /**
     * Replaces one entry of docs/BENCHMARKS.md's block of separate benchmarks (the "### $title —"
     * subsection), or adds it at the end of the block, leaving every other entry as it is.
     */
    public static function spliceBenchmark(string $root, string $title, string $file, string $heading, string $command): void
    {
        $path = "$root/docs/BENCHMARKS.md";
        $text = (string) \file_get_contents($path);
        $blockEnd = \strpos($text, "\n" . self::AFTER_SEPARATE . "\n");
        if ($blockEnd === false || \strpos($text, "\n" . self::SEPARATE . "\n") === false) {
            throw new \RuntimeException("$path has no \"" . self::SEPARATE . '" block to update');
        }
        $entry = \implode("\n", MarkdownReport::separateBenchmark($root, $title, $file, $heading, $command)) . "\n";
        $start = \strpos($text, "\n### $title — ");
        if ($start === false || $start > $blockEnd) {
            $text = \substr($text, 0, $blockEnd + 1) . $entry . \substr($text, $blockEnd + 1);
        } else {
            $next = \strpos($text, "\n### ", $start + 1);
            $end = $next === false || $next > $blockEnd ? $blockEnd : $next;
            $text = \substr($text, 0, $start + 1) . $entry . \substr($text, $end + 1);
        }
        \file_put_contents($path, $text);
    }

    /** Regenerates docs/BENCHMARKS.md's block of separate benchmarks from their documents. */
    public static function spliceBenchmarks(string $root): void
    {
        $path = "$root/docs/BENCHMARKS.md";
        $text = (string) \file_get_contents($path);
        $start = \strpos($text, self::SEPARATE . "\n");
        $end = \strpos($text, self::AFTER_SEPARATE . "\n");
        if ($start === false || $end === false || $end < $start) {
            throw new \RuntimeException("$path has no \"" . self::SEPARATE . '" block to update');
        }
        $block = \implode("\n", MarkdownReport::separateBenchmarks($root));
        \file_put_contents($path, \substr($text, 0, $start) . $block . "\n" . \substr($text, $end));
    }
}
