<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Process;

/**
 * wrk running in the background against a server, and what it reported: requests, non-2xx
 * responses, socket errors (connect, read, write, timeout).
 */
final class Load
{
    /** @var resource */
    private $process;
    private readonly string $outputFile;

    private function __construct(string $url, int $connections, float $seconds, string $timeout)
    {
        $this->outputFile = (string) \tempnam(\sys_get_temp_dir(), 'bobbin-wrk-');
        $command = ['wrk', '-t1', '-c' . $connections, '-d' . \max(1, (int) \round($seconds)) . 's', '--timeout', $timeout, $url];
        $process = \proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['file', $this->outputFile, 'w'], 2 => ['file', $this->outputFile, 'a']], $pipes);
        if ($process === false) {
            throw new \RuntimeException('Cannot start wrk');
        }
        $this->process = $process;
    }

    public static function start(string $url, int $connections = 16, float $seconds = 3.0, string $timeout = '5s'): self
    {
        return new self($url, $connections, $seconds, $timeout);
    }

    public static function isAvailable(): bool
    {
        return \is_executable('/usr/bin/wrk') || \trim((string) \shell_exec('command -v wrk 2>/dev/null')) !== '';
    }

    /** @return array{requests: int, non2xx: int, socketErrors: int, output: string} */
    public function finish(float $timeout = 30.0): array
    {
        $deadline = \microtime(true) + $timeout;
        while (\proc_get_status($this->process)['running']) {
            if (\microtime(true) > $deadline) {
                \posix_kill((int) \proc_get_status($this->process)['pid'], \SIGKILL);
                break;
            }
            \usleep(50_000);
        }
        \proc_close($this->process);
        $output = (string) \file_get_contents($this->outputFile);
        @\unlink($this->outputFile);
        $requests = \preg_match('/(\d+) requests in/', $output, $m) === 1 ? (int) $m[1] : 0;
        $non2xx = \preg_match('/Non-2xx or 3xx responses: (\d+)/', $output, $m) === 1 ? (int) $m[1] : 0;
        $socketErrors = 0;
        if (\preg_match('/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/', $output, $m) === 1) {
            $socketErrors = (int) $m[1] + (int) $m[2] + (int) $m[3] + (int) $m[4];
        }

        return ['requests' => $requests, 'non2xx' => $non2xx, 'socketErrors' => $socketErrors, 'output' => $output];
    }
}
