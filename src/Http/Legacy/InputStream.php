<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

/**
 * php://input for a script served by the legacy mode: PHP's CLI has no request body to give, so
 * while a request runs this wrapper takes the "php" scheme over. php://input reads the
 * request's body; every other php:// stream (temp, memory, output, stdin, filter…) is opened by
 * PHP's own wrapper and passed through.
 *
 * @internal installed by LegacyLoop
 */
final class InputStream
{
    private static string $body = '';
    private static bool $installed = false;

    /** @var resource|null set by PHP for stream contexts */
    public $context;
    /** @var resource|null PHP's own stream, for anything but php://input */
    private $inner = null;
    private bool $input = false;
    private int $position = 0;

    /** Serves $body as php://input from now on. */
    public static function serve(string $body): void
    {
        self::$body = $body;
        if (!self::$installed) {
            \stream_wrapper_unregister('php');
            \stream_wrapper_register('php', self::class);
            self::$installed = true;
        }
    }

    /** PHP's own wrapper again, and no body. */
    public static function withdraw(): void
    {
        self::$body = '';
        if (self::$installed) {
            \stream_wrapper_restore('php');
            self::$installed = false;
        }
    }

    public function stream_open(string $path, string $mode, int $options, ?string &$openedPath): bool
    {
        if (\strtolower($path) === 'php://input') {
            $this->input = true;

            return true;
        }
        \stream_wrapper_restore('php');
        try {
            $inner = $this->context === null ? @\fopen($path, $mode) : @\fopen($path, $mode, false, $this->context);
        } finally {
            \stream_wrapper_unregister('php');
            \stream_wrapper_register('php', self::class);
        }
        if ($inner === false) {
            return false;
        }
        $this->inner = $inner;

        return true;
    }

    public function stream_read(int $count): string|false
    {
        if ($this->input) {
            $chunk = (string) \substr(self::$body, $this->position, $count);
            $this->position += \strlen($chunk);

            return $chunk;
        }

        return $this->inner === null ? false : \fread($this->inner, \max(1, $count));
    }

    public function stream_write(string $data): int
    {
        return $this->input || $this->inner === null ? 0 : (int) \fwrite($this->inner, $data);
    }

    public function stream_eof(): bool
    {
        return $this->input ? $this->position >= \strlen(self::$body) : ($this->inner === null || \feof($this->inner));
    }

    public function stream_tell(): int
    {
        return $this->input ? $this->position : ($this->inner === null ? 0 : (int) \ftell($this->inner));
    }

    public function stream_seek(int $offset, int $whence): bool
    {
        if (!$this->input) {
            return $this->inner !== null && \fseek($this->inner, $offset, $whence) === 0;
        }
        $target = match ($whence) {
            \SEEK_CUR => $this->position + $offset,
            \SEEK_END => \strlen(self::$body) + $offset,
            default => $offset,
        };
        if ($target < 0) {
            return false;
        }
        $this->position = $target;

        return true;
    }

    /** @return array<int|string, int>|false */
    public function stream_stat(): array|false
    {
        return $this->input ? ['size' => \strlen(self::$body)] : ($this->inner === null ? false : \fstat($this->inner));
    }

    public function stream_flush(): bool
    {
        return $this->input || ($this->inner !== null && \fflush($this->inner));
    }

    public function stream_truncate(int $size): bool
    {
        return !$this->input && $this->inner !== null && $size >= 0 && \ftruncate($this->inner, $size);
    }

    public function stream_set_option(int $option, int $arg1, ?int $arg2): bool
    {
        return false;
    }

    public function stream_close(): void
    {
        if ($this->inner !== null) {
            \fclose($this->inner);
            $this->inner = null;
        }
    }
}
