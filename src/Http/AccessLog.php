<?php

declare(strict_types=1);

namespace Bobbin\Http;

/**
 * One line per request (--access-log), in the common log format with the duration and request
 * id appended, or as JSON lines (--access-log-format=json). Written straight to its stream
 * (stderr, or the --access-log-file), not through the PSR-3 logger, so each line is exactly the
 * format. The byte count is the response body's, the head not counted, as in the common log
 * format (with chunked framing it includes the chunk lines, as nginx's $body_bytes_sent does).
 *
 *   common: 127.0.0.1 - - [25/Nov/2026:10:00:00 +0000] "GET /x HTTP/1.1" 200 13 0.000417 9f3c-1a
 *   json:   {"time":"2026-11-25T10:00:00.123Z","remote":"127.0.0.1","method":"GET",...}
 *
 * The duration runs from when the request's bytes arrived (Async::readyTime(): the poll that
 * found them, or after code held the loop, the kernel's receive time on TCP) to its response
 * written: time queued behind other work in the worker shows.
 *
 * @internal written by the server's connections (ServerConfig::$accessLog)
 */
final class AccessLog
{
    /**
     * @param resource $stream
     * @param string $path the file $stream appends to ('' for stderr or a stream given): reopen() opens it again
     */
    public function __construct(private $stream, private readonly bool $json = false, private readonly string $path = '')
    {
    }

    /**
     * --access-log-file: appended to by every worker, each with its own descriptor (O_APPEND:
     * whole lines from several processes do not overwrite each other).
     *
     * @throws \RuntimeException when it cannot be opened
     */
    public static function toFile(string $path, bool $json): self
    {
        return new self(self::open($path), $json, $path);
    }

    public function path(): string
    {
        return $this->path;
    }

    /**
     * SIGUSR1 after logrotate moved the file: later lines go to a new file at the path. When the
     * new one cannot be opened the old descriptor stays: lines go on to the moved file rather
     * than nowhere.
     *
     * @throws \RuntimeException when the file cannot be opened again (the old one is kept)
     */
    public function reopen(): void
    {
        if ($this->path === '') {
            return;
        }
        $stream = self::open($this->path);
        $old = $this->stream;
        $this->stream = $stream;
        \fclose($old);
    }

    /**
     * @return resource
     * @throws \RuntimeException
     */
    private static function open(string $path)
    {
        $stream = @\fopen($path, 'ab');
        if ($stream === false) {
            throw new \RuntimeException(\sprintf('cannot open %s for appending: %s', $path, \error_get_last()['message'] ?? 'unknown error'));
        }
        // One write per line reaches the file at once: nothing is buffered in a worker that dies.
        \stream_set_write_buffer($stream, 0);

        return $stream;
    }

    public function request(string $remote, RequestHead $head, int $status, int $bytes, float $seconds, string $requestId): void
    {
        $time = \microtime(true);
        if ($this->json) {
            $line = \json_encode([
                'time' => \gmdate('Y-m-d\TH:i:s', (int) $time) . \sprintf('.%03dZ', (int) (($time - (int) $time) * 1000)),
                'remote' => $remote, 'method' => $head->method, 'target' => $head->target, 'protocol' => 'HTTP/' . $head->protocolVersion,
                'status' => $status, 'bytes' => $bytes, 'duration_s' => \round($seconds, 6), 'request_id' => $requestId,
            ], \JSON_UNESCAPED_SLASHES | \JSON_INVALID_UTF8_SUBSTITUTE) . "\n";
        } else {
            $line = \sprintf(
                "%s - - [%s] \"%s %s HTTP/%s\" %d %d %.6f %s\n",
                $remote === '' ? '-' : $remote,
                \gmdate('d/M/Y:H:i:s +0000', (int) $time),
                $head->method,
                $head->target,
                $head->protocolVersion,
                $status,
                $bytes,
                $seconds,
                $requestId,
            );
        }
        @\fwrite($this->stream, $line);
    }
}
