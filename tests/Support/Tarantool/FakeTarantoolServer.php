<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Tarantool;

use Bobbin\Tarantool\ConnectionConfig;

/**
 * The scripted fake Tarantool (fake-tarantool.php) in a child process, so it answers while the
 * test's own loop waits for the client. Stopped by its PID only.
 */
final class FakeTarantoolServer
{
    /** @param resource $process */
    private function __construct(private $process, private readonly int $pid, private readonly ?int $port, private readonly ?string $socket)
    {
    }

    public static function start(string $scenario, bool $unixSocket = false): self
    {
        $socket = $unixSocket ? \sys_get_temp_dir() . '/bobbin-fake-tarantool-' . \bin2hex(\random_bytes(4)) . '.sock' : null;
        $process = \proc_open(
            \array_values(\array_filter([\PHP_BINARY, __DIR__ . '/fake-tarantool.php', $scenario, $socket], static fn ($a) => $a !== null)),
            [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['file', '/dev/null', 'w']],
            $pipes,
        );
        if (!\is_resource($process)) {
            throw new \RuntimeException('Cannot start the fake Tarantool server');
        }
        $pid = (int) \proc_get_status($process)['pid'];
        $read = [$pipes[1]];
        $write = $except = null;
        $line = \trim(\stream_select($read, $write, $except, 10) === 1 ? (string) \fgets($pipes[1]) : '');
        \fclose($pipes[1]);
        if ($line === 'ready' && $socket !== null) {
            return new self($process, $pid, null, $socket);
        }
        if (\preg_match('/^port (\d+)$/', $line, $m) !== 1) {
            \posix_kill($pid, \SIGKILL);
            \proc_close($process);
            throw new \RuntimeException('The fake Tarantool server did not start: ' . $line);
        }

        return new self($process, $pid, (int) $m[1], null);
    }

    public function config(float $connectTimeout = 5.0, ?float $requestTimeout = null): ConnectionConfig
    {
        return new ConnectionConfig(
            port: $this->port ?? 3301,
            user: 'fake',
            password: 'secret',
            unixSocket: $this->socket,
            connectTimeout: $connectTimeout,
            requestTimeout: $requestTimeout,
        );
    }

    public function stop(): void
    {
        if (\proc_get_status($this->process)['running']) {
            \posix_kill($this->pid, \SIGTERM);
        }
        \proc_close($this->process);
        if ($this->socket !== null) {
            @\unlink($this->socket);
        }
    }
}
