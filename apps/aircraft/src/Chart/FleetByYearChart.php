<?php

declare(strict_types=1);

namespace Bobbin\Apps\Aircraft\Chart;

/**
 * A PNG bar chart of the fleet by assembly year, drawn with GD: title, grid, value axis, one
 * shaded bar per year with its count, years along the bottom. Drawn at twice the size and scaled
 * down (GD's shapes have no antialiasing of their own), which is what makes it worth a job
 * worker: some tens of milliseconds of CPU for a chart of the default size.
 */
final class FleetByYearChart
{
    public const MIN_WIDTH = 300;
    public const MAX_WIDTH = 2400;
    public const MIN_HEIGHT = 200;
    public const MAX_HEIGHT = 1600;
    private const SCALE = 2;

    /** @param array<int, int> $countsByYear aircraft per assembly year, years ascending */
    public function __construct(private readonly array $countsByYear, private readonly int $width, private readonly int $height)
    {
        if ($width < self::MIN_WIDTH || $width > self::MAX_WIDTH || $height < self::MIN_HEIGHT || $height > self::MAX_HEIGHT) {
            throw new \InvalidArgumentException(\sprintf('A chart is %d..%d x %d..%d pixels', self::MIN_WIDTH, self::MAX_WIDTH, self::MIN_HEIGHT, self::MAX_HEIGHT));
        }
    }

    public function png(): string
    {
        $s = self::SCALE;
        $canvas = self::image($this->width * $s, $this->height * $s);
        $this->draw($canvas, $s);
        $chart = self::image($this->width, $this->height);
        \imagecopyresampled($chart, $canvas, 0, 0, 0, 0, $this->width, $this->height, $this->width * $s, $this->height * $s);
        \imagedestroy($canvas);
        // Labels go on after the scaling: GD's bitmap fonts would blur.
        $this->label($chart);
        \ob_start();
        \imagepng($chart, null, 9);
        \imagedestroy($chart);

        return (string) \ob_get_clean();
    }

    /** Background, grid and bars, at $s times the final size. */
    private function draw(\GdImage $image, int $s): void
    {
        [$left, $top, $right, $bottom] = $this->plotArea($s);
        $fullHeight = \imagesy($image);
        for ($y = 0; $y < $fullHeight; $y++) {
            $shade = 255 - (int) (14 * $y / $fullHeight);
            \imageline($image, 0, $y, \imagesx($image) - 1, $y, self::color($image, $shade, $shade, 255));
        }
        $grid = self::color($image, 214, 218, 228);
        [$ticks, $topValue] = $this->ticks();
        foreach ($ticks as $tick) {
            $y = $bottom - (int) \round(($bottom - $top) * $tick / $topValue);
            \imagefilledrectangle($image, $left, $y, $right, $y + $s - 1, $grid);
        }
        $years = \array_keys($this->countsByYear);
        $slot = \count($years) === 0 ? 0 : ($right - $left) / \count($years);
        foreach ($years as $i => $year) {
            $count = $this->countsByYear[$year];
            $x0 = $left + (int) \round($slot * $i + $slot * 0.15);
            $x1 = $left + (int) \round($slot * ($i + 1) - $slot * 0.15);
            $y0 = $bottom - (int) \round(($bottom - $top) * $count / $topValue);
            \imagefilledrectangle($image, $x0 + 3 * $s, $y0 + 3 * $s, $x1 + 3 * $s, $bottom, self::color($image, 190, 196, 210)); // shadow
            for ($y = $y0; $y <= $bottom; $y++) {
                $t = $bottom === $y0 ? 0.0 : ($y - $y0) / ($bottom - $y0);
                \imageline($image, $x0, $y, $x1, $y, self::color($image, (int) (38 + 40 * $t), (int) (110 + 50 * $t), (int) (200 + 30 * $t)));
            }
        }
        $axis = self::color($image, 60, 64, 72);
        \imagefilledrectangle($image, $left, $bottom, $right, $bottom + $s - 1, $axis);
        \imagefilledrectangle($image, $left, $top, $left + $s - 1, $bottom, $axis);
    }

    /** Title, value labels, counts and years, at the final size. */
    private function label(\GdImage $image): void
    {
        [$left, $top, $right, $bottom] = $this->plotArea(1);
        $ink = self::color($image, 30, 32, 38);
        $muted = self::color($image, 90, 96, 110);
        $total = \array_sum($this->countsByYear);
        $title = $total === 0 ? 'Fleet by assembly year: no aircraft yet' : \sprintf('Fleet by assembly year (%d aircraft)', $total);
        \imagestring($image, 5, $left, (int) ($top / 2) - 8, $title, $ink);
        [$ticks, $topValue] = $this->ticks();
        foreach ($ticks as $tick) {
            $y = $bottom - (int) \round(($bottom - $top) * $tick / $topValue);
            $text = (string) $tick;
            \imagestring($image, 2, $left - 8 - 6 * \strlen($text), $y - 7, $text, $muted);
        }
        $years = \array_keys($this->countsByYear);
        if ($years === []) {
            return;
        }
        $slot = ($right - $left) / \count($years);
        // Every year's label needs about 30 px; skip some when they would overlap.
        $every = (int) \max(1, \ceil(30 / \max(1.0, $slot)));
        foreach ($years as $i => $year) {
            $center = $left + (int) \round($slot * ($i + 0.5));
            if ($i % $every === 0) {
                \imagestring($image, 2, $center - 12, $bottom + 6, (string) $year, $muted);
            }
            if ($slot >= 22) {
                $count = (string) $this->countsByYear[$year];
                $y = $bottom - (int) \round(($bottom - $top) * $this->countsByYear[$year] / $topValue);
                \imagestring($image, 2, $center - 3 * \strlen($count), $y - 15, $count, $ink);
            }
        }
    }

    /** @return array{int, int, int, int} left, top, right, bottom of the plot, at $s times the final size */
    private function plotArea(int $s): array
    {
        return [64 * $s, 56 * $s, ($this->width - 24) * $s, ($this->height - 40) * $s];
    }

    /** @return array{list<int>, int} the grid lines' values and the value at the top of the plot */
    private function ticks(): array
    {
        $most = \max([1, ...\array_values($this->countsByYear)]);
        $step = 1;
        foreach ([1, 2, 5] as $base) {
            for ($magnitude = 1; $base * $magnitude * 8 < $most; $magnitude *= 10) {
            }
            $candidate = $base * $magnitude;
            if ($candidate * 8 >= $most && ($step === 1 || $candidate < $step)) {
                $step = $candidate;
            }
        }
        $top = (int) (\ceil($most / $step) * $step);

        return [\range($step, $top, $step), $top];
    }

    private static function image(int $width, int $height): \GdImage
    {
        $image = \imagecreatetruecolor(\max(1, $width), \max(1, $height));
        if ($image === false) {
            throw new \RuntimeException(\sprintf('GD could not make a %dx%d image', $width, $height));
        }

        return $image;
    }

    private static function color(\GdImage $image, int $red, int $green, int $blue): int
    {
        return (int) \imagecolorallocate($image, \max(0, \min(255, $red)), \max(0, \min(255, $green)), \max(0, \min(255, $blue)));
    }
}
