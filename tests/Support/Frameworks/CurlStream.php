<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Frameworks;

/**
 * Reads a streamed response with curl -N (no buffering), noting when each piece arrives; can
 * hang up once some text has arrived a number of times, as a browser tab closed mid-stream.
 */
final class CurlStream
{
    /** @param list<array{float, string}> $pieces seconds since the request was sent, and the bytes */
    private function __construct(public readonly array $pieces)
    {
    }

    /**
     * @param string $hangUpOn text after whose $times-th arrival curl is stopped ('' : read to the end)
     */
    public static function read(string $url, string $hangUpOn = '', int $times = 1, float $timeout = 20.0): self
    {
        $process = \proc_open(['curl', '-N', '-s', '--max-time', (string) (int) $timeout, $url], [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes);
        if (!\is_resource($process)) {
            throw new \RuntimeException('curl did not start');
        }
        $start = \microtime(true);
        $pieces = [];
        $all = '';
        \stream_set_blocking($pipes[1], false);
        while (\microtime(true) - $start < $timeout) {
            $read = [$pipes[1]];
            $write = $except = null;
            if (\stream_select($read, $write, $except, 0, 20000) === 0) {
                continue;
            }
            $data = (string) \fread($pipes[1], 65536);
            if ($data === '') {
                if (\feof($pipes[1])) {
                    break;
                }
                continue;
            }
            $pieces[] = [\microtime(true) - $start, $data];
            $all .= $data;
            if ($hangUpOn !== '' && \substr_count($all, $hangUpOn) >= $times) {
                break;
            }
        }
        \proc_terminate($process);
        \fclose($pipes[1]);
        \proc_close($process);

        return new self($pieces);
    }

    public function body(): string
    {
        return \implode('', \array_column($this->pieces, 1));
    }

    /** Seconds after the request when $text had arrived complete; null when it never did. */
    public function arrivalOf(string $text): ?float
    {
        $all = '';
        foreach ($this->pieces as [$time, $bytes]) {
            $all .= $bytes;
            if (\str_contains($all, $text)) {
                return $time;
            }
        }

        return null;
    }
}
