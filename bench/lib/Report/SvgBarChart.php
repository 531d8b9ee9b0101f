<?php

declare(strict_types=1);

namespace Bobbin\Bench\Report;

use Bobbin\Bench\Summary;

/** A horizontal bar chart as a standalone SVG file: one bar per variant, min–max whiskers. */
final class SvgBarChart
{
    private const LABEL_WIDTH = 190;
    private const BAR_AREA = 460;
    private const ROW = 28;
    private const TOP = 40;

    /** @param list<Bar> $bars */
    public function __construct(
        private readonly string $title,
        private readonly string $unit,
        private readonly array $bars,
        private readonly bool $lowerIsBetter = false,
    ) {
    }

    public function render(): string
    {
        $width = self::LABEL_WIDTH + self::BAR_AREA + 120;
        $height = self::TOP + \count($this->bars) * self::ROW + 30;
        $scaleMax = 0.0;
        foreach ($this->bars as $bar) {
            $scaleMax = \max($scaleMax, $bar->max, $bar->median);
        }
        $scaleMax = $scaleMax > 0 ? $scaleMax : 1.0;
        $svg = [\sprintf('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="13">', $width, $height, $width, $height)];
        $svg[] = \sprintf('<rect width="%d" height="%d" fill="#ffffff"/>', $width, $height);
        $svg[] = \sprintf('<text x="10" y="22" font-size="15" font-weight="bold">%s</text>', self::escape($this->title));
        $svg[] = \sprintf('<text x="%d" y="22" text-anchor="end" fill="#555">%s, %s</text>', $width - 10, self::escape($this->unit), $this->lowerIsBetter ? 'lower is better' : 'higher is better');
        foreach ($this->bars as $i => $bar) {
            $y = self::TOP + $i * self::ROW;
            $w = $bar->median / $scaleMax * self::BAR_AREA;
            $x0 = self::LABEL_WIDTH;
            $svg[] = \sprintf('<text x="%d" y="%d" text-anchor="end">%s</text>', $x0 - 8, $y + 15, self::escape($bar->label));
            $svg[] = \sprintf('<rect x="%d" y="%d" width="%.1f" height="18" fill="%s"/>', $x0, $y + 2, \max(1.0, $w), $bar->color);
            if ($bar->max > $bar->min) {
                $a = $x0 + $bar->min / $scaleMax * self::BAR_AREA;
                $b = $x0 + $bar->max / $scaleMax * self::BAR_AREA;
                $svg[] = \sprintf('<path d="M%.1f %d H%.1f M%.1f %d V%d M%.1f %d V%d" stroke="#222" stroke-width="1.2"/>', $a, $y + 11, $b, $a, $y + 6, $y + 16, $b, $y + 6, $y + 16);
            }
            $svg[] = \sprintf('<text x="%.1f" y="%d">%s</text>', $x0 + \max($w, $bar->max / $scaleMax * self::BAR_AREA) + 6, $y + 15, self::escape(Summary::number($bar->median)));
        }
        $svg[] = \sprintf('<text x="10" y="%d" fill="#777" font-size="11">bars: median; whiskers: min–max over the repetitions</text>', $height - 8);
        $svg[] = '</svg>';

        return \implode("\n", $svg) . "\n";
    }

    private static function escape(string $text): string
    {
        return \htmlspecialchars($text, \ENT_XML1 | \ENT_QUOTES, 'UTF-8');
    }
}
