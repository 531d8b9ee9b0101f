<?php

declare(strict_types=1);

namespace Bobbin\Http\StaticFiles;

/**
 * What a Range header (RFC 9110 §14.2) asks of a representation of $size bytes. Pure.
 *
 * - no header, another unit than bytes, or more than one range: the whole representation (200;
 *   the RFC lets a server ignore Range, and nginx answers several ranges with a multipart body
 *   Bobbin does not build);
 * - one satisfiable range: its first and last byte, the last clamped to the end (206);
 * - a bytes range that is malformed ("bytes=abc", "bytes=5-1", "bytes=") or that starts at or
 *   past the end: unsatisfiable (416 with `Content-Range: bytes *∕SIZE`), as nginx answers.
 *
 * Numbers too long for an integer count as "beyond any file": a first byte there is
 * unsatisfiable, a last byte there means the end.
 *
 * @immutable
 *
 * @internal parsed for FileAnswers
 */
final class ByteRange
{
    /** More ranges than this are not even parsed: a header of many small ranges is a known abuse. */
    private const MOST_RANGES = 16;

    private function __construct(
        public readonly RangeKind $kind,
        public readonly int $first = 0,
        public readonly int $last = -1,
    ) {
    }

    public static function parse(?string $header, int $size): self
    {
        if ($header === null || $header === '') {
            return new self(RangeKind::Whole);
        }
        $equals = \strpos($header, '=');
        if ($equals === false || \strtolower(\trim(\substr($header, 0, $equals))) !== 'bytes') {
            return new self(RangeKind::Whole); // an unknown unit is ignored (RFC 9110 §14.2)
        }
        $specs = \explode(',', \substr($header, $equals + 1), self::MOST_RANGES + 1);
        $ranges = [];
        foreach ($specs as $spec) {
            $spec = \trim($spec, " \t");
            if ($spec === '' && \count($specs) > 1) {
                continue; // "bytes=0-1, ,2-3": empty list elements are allowed (RFC 9110 §5.6.1)
            }
            $range = self::one($spec, $size);
            if ($range === null) {
                return new self(RangeKind::Unsatisfiable);
            }
            $ranges[] = $range;
        }
        if ($ranges === []) {
            return new self(RangeKind::Unsatisfiable);
        }
        $satisfiable = \array_values(\array_filter($ranges, static fn (array $r): bool => $r !== [-1, -1]));
        if ($satisfiable === []) {
            return new self(RangeKind::Unsatisfiable);
        }
        if (\count($ranges) > 1) {
            return new self(RangeKind::Whole);
        }

        return new self(RangeKind::Single, $satisfiable[0][0], $satisfiable[0][1]);
    }

    public function length(): int
    {
        return $this->last - $this->first + 1;
    }

    /**
     * One range-spec: [first, last] of a satisfiable one, [-1, -1] for a well-formed one that
     * is not satisfiable, null for a malformed one.
     *
     * @return array{int, int}|null
     */
    private static function one(string $spec, int $size): ?array
    {
        if (\preg_match('/^(\d*)[ \t]*-[ \t]*(\d*)$/D', $spec, $m) !== 1 || ($m[1] === '' && $m[2] === '')) {
            return null;
        }
        if ($m[1] === '') {
            // A suffix: the last N bytes ("bytes=-0" asks for none of them).
            $suffix = self::number($m[2]);
            if ($suffix === 0 || $size === 0) {
                return [-1, -1];
            }

            return [\max(0, $size - $suffix), $size - 1];
        }
        $first = self::number($m[1]);
        $last = $m[2] === '' ? \PHP_INT_MAX : self::number($m[2]);
        if ($last < $first) {
            return null; // "bytes=5-1" is invalid (RFC 9110 §14.1.1)
        }
        if ($first >= $size) {
            return [-1, -1];
        }

        return [$first, \min($last, $size - 1)];
    }

    /** Digits as an integer; more than an integer holds counts as PHP_INT_MAX. */
    private static function number(string $digits): int
    {
        $digits = \ltrim($digits, '0');
        if ($digits === '') {
            return 0;
        }

        return \strlen($digits) > 18 ? \PHP_INT_MAX : (int) $digits;
    }
}
