<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Nats;

/** The scripted fake NATS server (fake-nats.php) in a child process; stopped by its PID only. */
final class FakeNatsServer
{
    /** @param resource $process */
    private function __construct(private $process, private readonly int $pid, public readonly int $port)
    {
    }

    public static function start(string $scenario): self
    {
        $process = \proc_open([\PHP_BINARY, __DIR__ . '/fake-nats.php', $scenario], [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes);
        if (!\is_resource($process)) {
            throw new \RuntimeException('Cannot start the fake NATS server');
        }
        $pid = (int) \proc_get_status($process)['pid'];
        $read = [$pipes[1]];
        $write = $except = null;
        $line = \trim(\stream_select($read, $write, $except, 10) === 1 ? (string) \fgets($pipes[1]) : '');
        \fclose($pipes[1]);
        if (\preg_match('/^port (\d+)$/', $line, $m) !== 1) {
            \posix_kill($pid, \SIGKILL);
            \proc_close($process);
            throw new \RuntimeException('The fake NATS server did not start: ' . $line);
        }

        return new self($process, $pid, (int) $m[1]);
    }

    public function url(): string
    {
        return 'nats://127.0.0.1:' . $this->port;
    }

    public function stop(): void
    {
        \posix_kill($this->pid, \SIGKILL);
        \proc_close($this->process);
    }
}
