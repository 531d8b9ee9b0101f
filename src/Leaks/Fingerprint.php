<?php

declare(strict_types=1);

namespace Bobbin\Leaks;

/**
 * A short string that changes when a value changes: scalars as they are, arrays and objects
 * walked (objects by identity and by their properties, private ones included) up to a depth and
 * a number of nodes, closures and resources by identity. Values that differ only beyond those
 * limits look the same: a cost bound, since every watched value is walked twice per request.
 */
final class Fingerprint
{
    private const MAX_DEPTH = 6;
    private const MAX_NODES = 5000;

    private int $nodes = 0;
    /** @var array<int, true> objects on the current path (cycles) */
    private array $path = [];

    private function __construct()
    {
    }

    public static function of(mixed $value): string
    {
        $walk = new self();
        $text = $walk->describe($value, 0);

        return \strlen($text) <= 32 ? $text : \md5($text);
    }

    private function describe(mixed $value, int $depth): string
    {
        if (++$this->nodes > self::MAX_NODES) {
            return '…';
        }
        if ($value === null || \is_scalar($value)) {
            return \get_debug_type($value) . ':' . \var_export($value, true);
        }
        if (\is_resource($value) || \get_debug_type($value) === 'resource (closed)') {
            return 'resource#' . (int) $value;
        }
        if (\is_array($value)) {
            if ($depth >= self::MAX_DEPTH) {
                return 'array(' . \count($value) . ')';
            }
            $parts = [];
            foreach ($value as $key => $item) {
                $parts[] = $key . '=>' . $this->describe($item, $depth + 1);
            }

            return '[' . \implode(',', $parts) . ']';
        }
        \assert(\is_object($value));
        $id = \spl_object_id($value);
        $head = $value::class . '#' . $id;
        if ($value instanceof \Closure || $value instanceof \Fiber || $value instanceof \WeakMap || $depth >= self::MAX_DEPTH || isset($this->path[$id])) {
            return $head;
        }
        $this->path[$id] = true;
        $parts = [];
        foreach (\get_mangled_object_vars($value) as $name => $property) {
            $parts[] = $name . '=' . $this->describe($property, $depth + 1);
        }
        unset($this->path[$id]);

        return $head . '{' . \implode(',', $parts) . '}';
    }
}
