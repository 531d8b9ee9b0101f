<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Redis;

/**
 * The scripted fake Redis server (fake-redis.php) in a child process, so it answers while the
 * test's own loop waits for the client. Stopped by its PID only.
 */
final class FakeRedisServer
{
    /** @param resource $process */
    private function __construct(private $process, private readonly int $pid, public readonly int $port)
    {
    }

    public static function start(string $scenario): self
    {
        $process = \proc_open(
            [\PHP_BINARY, __DIR__ . '/fake-redis.php', $scenario],
            [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['file', '/dev/null', 'w']],
            $pipes,
        );
        if (!\is_resource($process)) {
            throw new \RuntimeException('Cannot start the fake Redis server');
        }
        $pid = (int) \proc_get_status($process)['pid'];
        $read = [$pipes[1]];
        $write = $except = null;
        $line = \trim(\stream_select($read, $write, $except, 10) === 1 ? (string) \fgets($pipes[1]) : '');
        \fclose($pipes[1]);
        if (\preg_match('/^port (\d+)$/', $line, $m) !== 1) {
            \posix_kill($pid, \SIGKILL);
            \proc_close($process);
            throw new \RuntimeException('The fake Redis server did not start: ' . $line);
        }

        return new self($process, $pid, (int) $m[1]);
    }

    public function url(): string
    {
        return 'redis://127.0.0.1:' . $this->port;
    }

    public function stop(): void
    {
        if (\proc_get_status($this->process)['running']) {
            \posix_kill($this->pid, \SIGTERM);
        }
        \proc_close($this->process);
    }
}
