<?php

declare(strict_types=1);

namespace Bobbin\Bench;

/** Runs external programs without a shell in between (arguments are never re-parsed). */
final class Shell
{
    /**
     * @param list<string> $command
     * @param array<string, string>|null $env extra variables on top of the current environment
     */
    public static function run(array $command, ?array $env = null, ?float $timeout = null): CommandResult
    {
        $running = self::start($command, $env);

        return $running->wait($timeout);
    }

    /**
     * @param list<string> $command
     * @param array<string, string>|null $env
     */
    public static function start(array $command, ?array $env = null, ?string $logFile = null): RunningCommand
    {
        $environment = $env === null ? null : \array_merge(\getenv(), $env);
        $out = $logFile === null ? ['pipe', 'w'] : ['file', $logFile, 'a'];
        $err = $logFile === null ? ['pipe', 'w'] : ['file', $logFile, 'a'];
        $pipes = [];
        $process = \proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => $out, 2 => $err], $pipes, null, $environment);
        if (!\is_resource($process)) {
            throw new \RuntimeException('Could not start: ' . \implode(' ', $command));
        }

        return new RunningCommand($process, $pipes, \implode(' ', $command));
    }

    /** @param list<string> $command the same command quoted for a shell, for the report */
    public static function quote(array $command): string
    {
        return \implode(' ', \array_map(
            static fn (string $a): string => \preg_match('~^[A-Za-z0-9_./:=,@%+-]+$~', $a) ? $a : \escapeshellarg($a),
            $command,
        ));
    }

    /** Whether $program is an executable on PATH (looked up here: no shell to start, nothing to race). */
    public static function hasProgram(string $program): bool
    {
        foreach (\explode(':', (string) \getenv('PATH')) as $directory) {
            if ($directory !== '' && \is_file("$directory/$program") && \is_executable("$directory/$program")) {
                return true;
            }
        }

        return false;
    }

    public static function freePort(): int
    {
        $server = \stream_socket_server('tcp://127.0.0.1:0');
        if ($server === false) {
            throw new \RuntimeException('No free TCP port on 127.0.0.1');
        }
        $name = (string) \stream_socket_get_name($server, false);
        \fclose($server);

        return (int) \substr($name, \strrpos($name, ':') + 1);
    }

    /** Waits until something accepts connections on 127.0.0.1:$port (a server just started). */
    public static function waitForPort(int $port, float $seconds = 10.0): void
    {
        $deadline = \microtime(true) + $seconds;
        while (true) {
            $probe = @\stream_socket_client("tcp://127.0.0.1:$port", $code, $message, 1);
            if ($probe !== false) {
                \fclose($probe);

                return;
            }
            if (\microtime(true) >= $deadline) {
                throw new \RuntimeException("nothing listens on port $port");
            }
            \usleep(50_000);
        }
    }
}
