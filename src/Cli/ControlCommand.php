<?php

declare(strict_types=1);

namespace Bobbin\Cli;

use Bobbin\Platform\RequiredExtension;
use Bobbin\Process\MasterConfig;
use Bobbin\Process\Admin\StatusReport;
use Bobbin\Process\StatusFile;

/**
 * `bin/bobbin reload|status|stop --pid-file=PATH`: talks to a running master (or single
 * process) through its pid file and signals; `status` reads PATH.status.json.
 */
final class ControlCommand
{
    public const COMMANDS = ['reload', 'status', 'stop'];

    /** @param resource $stdout */
    public function __construct(private $stdout)
    {
    }

    /**
     * @param list<string> $arguments after the command name
     * @throws UsageException|StartupException
     */
    public function run(string $command, array $arguments): int
    {
        [$pidFile, $timeout, $wantsHelp] = self::parseArguments($command, $arguments);
        if ($wantsHelp) {
            \fwrite($this->stdout, self::help());

            return ExitCode::Ok->value;
        }
        RequiredExtension::check('posix', 'bin/bobbin ' . $command);
        $pid = self::runningPid($pidFile);

        return match ($command) {
            'reload' => $this->reload($pid, $pidFile),
            'stop' => $this->stop($pid, $pidFile, $timeout),
            default => $this->status($pid, $pidFile),
        };
    }

    public static function help(): string
    {
        return <<<'TEXT'
            Usage: bin/bobbin reload|status|stop --pid-file=PATH [--timeout=SECONDS]

              reload   SIGHUP to the master: new workers load the application from disk, then the old ones drain
              status   one line per worker: pid, state, uptime, requests served, requests in flight, memory
              stop     SIGTERM, then wait until the process has exited (up to --timeout, default 60 s)

            PATH is the --pid-file given to `bin/bobbin serve` (env BOBBIN_PID_FILE).

            TEXT;
    }

    private function reload(int $pid, string $pidFile): int
    {
        if (StatusFile::read(MasterConfig::statusFileOf($pidFile)) === null) {
            // A single process (--single-process) has no reload: SIGHUP would simply end it.
            throw new StartupException(\sprintf('process %d is no master (no %s): it runs with --single-process, which has no reload', $pid, MasterConfig::statusFileOf($pidFile)));
        }
        \posix_kill($pid, \SIGHUP);
        \fwrite($this->stdout, \sprintf("Reload requested from master %d (it logs when the new workers serve)\n", $pid));

        return ExitCode::Ok->value;
    }

    private function stop(int $pid, string $pidFile, float $timeout): int
    {
        \posix_kill($pid, \SIGTERM);
        $deadline = \microtime(true) + $timeout;
        while (self::isAlive($pid, $pidFile)) {
            if (\microtime(true) > $deadline) {
                throw new StartupException(\sprintf('process %d is still running %.0f s after SIGTERM', $pid, $timeout));
            }
            \usleep(50_000); // blocking allowed: `bin/bobbin stop` waits for the master, outside any server
        }
        \fwrite($this->stdout, \sprintf("Stopped %d\n", $pid));

        return ExitCode::Ok->value;
    }

    private function status(int $pid, string $pidFile): int
    {
        $status = StatusFile::read(MasterConfig::statusFileOf($pidFile));
        if ($status === null) {
            \fwrite($this->stdout, \sprintf("process %d is running, without a master status (a single process, or still starting)\n", $pid));

            return ExitCode::Ok->value;
        }
        $admin = \is_array($status['master'] ?? null) ? (string) ($status['master']['admin'] ?? '') : '';
        $live = $admin === '' ? null : self::fetchReport($admin);
        $lines = $live !== null ? StatusReport::describe($live) : StatusFile::describe($status, \microtime(true));
        \fwrite($this->stdout, \implode("\n", $lines) . "\n");

        return ExitCode::Ok->value;
    }

    /**
     * The master's live /status.json through its admin listener, or null when it does not answer
     * within a moment (the status file, up to a second old, serves then).
     *
     * @return array<string, mixed>|null
     */
    private static function fetchReport(string $admin): ?array
    {
        $target = \str_starts_with($admin, 'unix:') ? 'unix://' . \substr($admin, 5) : 'tcp://' . $admin;
        $socket = @\stream_socket_client($target, $code, $message, 2.0);
        if ($socket === false) {
            return null;
        }
        \stream_set_timeout($socket, 2);
        \fwrite($socket, "GET /status.json HTTP/1.0\r\nHost: bobbin\r\n\r\n");
        $raw = (string) \stream_get_contents($socket);
        \fclose($socket);
        $body = \explode("\r\n\r\n", $raw, 2)[1] ?? '';
        $report = \json_decode($body, true);

        return \is_array($report) ? $report : null;
    }

    /** @throws StartupException when nothing runs under that pid file */
    private static function runningPid(string $pidFile): int
    {
        $contents = @\file_get_contents($pidFile);
        if ($contents === false) {
            throw new StartupException(\sprintf('the master is not running (no pid file %s)', $pidFile));
        }
        $pid = (int) \trim($contents);
        if ($pid < 1 || !self::isAlive($pid, $pidFile)) {
            throw new StartupException(\sprintf('the master is not running (process %d from %s is gone)', $pid, $pidFile));
        }

        return $pid;
    }

    private static function isAlive(int $pid, string $pidFile): bool
    {
        if (!\posix_kill($pid, 0)) {
            return false;
        }
        // An exited child of ours would still answer as a zombie; its state says so.
        $stat = @\file_get_contents('/proc/' . $pid . '/stat');
        if (\is_string($stat) && \preg_match('/\) (\S)/', $stat, $m) === 1 && $m[1] === 'Z') {
            return false;
        }

        return \is_file($pidFile) || $stat !== false;
    }

    /**
     * @param list<string> $arguments
     * @return array{string, float, bool}
     * @throws UsageException
     */
    private static function parseArguments(string $command, array $arguments): array
    {
        $parsed = (new CommandLine($command, ['pid-file' => 'string', 'timeout' => 'string']))->parse($arguments);
        if ($parsed->help) {
            return ['', 0.0, true];
        }
        $pidFile = $parsed->options['pid-file'] ?? (string) (\getenv('BOBBIN_PID_FILE') ?: '');
        $timeout = 60.0;
        if (isset($parsed->options['timeout'])) {
            $value = $parsed->options['timeout'];
            if (!\is_numeric($value) || (float) $value <= 0) {
                throw new UsageException('--timeout expects a positive number of seconds');
            }
            $timeout = (float) $value;
        }
        if ($pidFile === '') {
            throw new UsageException(\sprintf('%s needs --pid-file=PATH (the one given to bin/bobbin serve)', $command));
        }

        return [$pidFile, $timeout, false];
    }
}
