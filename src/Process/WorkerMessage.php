<?php

declare(strict_types=1);

namespace Bobbin\Process;

/**
 * One line a worker sends its master over their socket pair: a JSON object with a "type"
 * (ready, boot-failed, stats, retiring, exiting, metrics) and the fields of that type; the master
 * sends lines of the same form the other way (collect).
 */
final readonly class WorkerMessage
{
    public const READY = 'ready';
    public const BOOT_FAILED = 'boot-failed';
    public const STATS = 'stats';
    public const RETIRING = 'retiring';
    /** The worker ends now, on purpose (a legacy script's exit()): replace it at once, it is no crash. */
    public const EXITING = 'exiting';
    /** Master → worker: send your metric families, tagged with this id. */
    public const COLLECT = 'collect';
    /** Worker → master: the metric families asked for by a collect of the same id. */
    public const METRICS = 'metrics';

    /** @param array<string, mixed> $fields */
    public function __construct(public string $type, public array $fields = [])
    {
    }

    public static function ready(): self
    {
        return new self(self::READY);
    }

    public static function bootFailed(string $message, int $exitCode): self
    {
        return new self(self::BOOT_FAILED, ['message' => $message, 'exitCode' => $exitCode]);
    }

    public static function stats(WorkerStats $stats): self
    {
        return new self(self::STATS, $stats->toArray());
    }

    public static function retiring(string $reason): self
    {
        return new self(self::RETIRING, ['reason' => $reason]);
    }

    public static function exiting(string $reason): self
    {
        return new self(self::EXITING, ['reason' => $reason]);
    }

    public static function collect(int $id): self
    {
        return new self(self::COLLECT, ['id' => $id]);
    }

    /** @param list<array<string, mixed>> $families MetricFamily::toArray() of each */
    public static function metrics(int $id, array $families): self
    {
        return new self(self::METRICS, ['id' => $id, 'families' => $families]);
    }

    /** The line on the wire, newline included. */
    public function encode(): string
    {
        return \json_encode(['type' => $this->type] + $this->fields, \JSON_THROW_ON_ERROR | \JSON_UNESCAPED_SLASHES | \JSON_INVALID_UTF8_SUBSTITUTE) . "\n";
    }

    /** @return self|null null for a line that is no message (ignored, never fatal to the master) */
    public static function decode(string $line): ?self
    {
        try {
            $data = \json_decode($line, true, 16, \JSON_THROW_ON_ERROR);
        } catch (\JsonException) {
            return null;
        }
        if (!\is_array($data) || !\is_string($data['type'] ?? null)) {
            return null;
        }
        $type = $data['type'];
        unset($data['type']);

        /** @var array<string, mixed> $data */
        return new self($type, $data);
    }

    public function string(string $field, string $default = ''): string
    {
        $value = $this->fields[$field] ?? $default;

        return \is_scalar($value) ? (string) $value : $default;
    }

    public function int(string $field, int $default = 0): int
    {
        $value = $this->fields[$field] ?? $default;

        return \is_int($value) || \is_float($value) || (\is_string($value) && \is_numeric($value)) ? (int) $value : $default;
    }
}
