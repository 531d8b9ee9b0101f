<?php

declare(strict_types=1);

namespace Bobbin\Bench\Server;

use Bobbin\Bench\RunningCommand;
use Bobbin\Bench\Shell;

/** `bin/bobbin serve APP_FILE`, optionally pinned with taskset, stopped with SIGTERM. */
final class BobbinServer implements Server
{
    /**
     * PHP flags of the `bobbin-no-jit` variant: with opcache already on, bin/bobbin does not
     * relaunch itself with the tracing JIT (Bobbin\Cli\OpcacheRelaunch), so this is opcache
     * alone, as PHP-FPM runs by default. Every other Bobbin variant runs `bin/bobbin serve` as
     * shipped: opcache and the tracing JIT.
     */
    public const NO_JIT_FLAGS = ['-d', 'opcache.enable_cli=1'];
    /** Where bench/peers/build installs Bobbin as an application does (Composer, --no-dev), relative to the checkout. */
    public const INSTALLED_BIN = 'var/peers/bobbin/vendor/bin/bobbin';

    private function __construct(
        private readonly string $name,
        private readonly int $port,
        private readonly RunningCommand $process,
        private readonly string $command,
    ) {
    }

    /**
     * @param string $appFile relative to the checkout; '' for none (--legacy-docroot in $serveOptions)
     * @param array<string, string> $env
     * @param list<string> $phpFlags PHP options before bin/bobbin ([] = as shipped)
     * @param list<string> $serveOptions further options of `bin/bobbin serve`
     * @param string|null $bin the bobbin executable; null for the checkout's bin/bobbin (self::installed() for the install)
     */
    public static function start(
        string $root,
        string $name,
        string $appFile,
        ?string $cpus,
        int $workers,
        array $env,
        string $readyPath,
        array $phpFlags = [],
        array $serveOptions = [],
        ?string $bin = null,
    ): self {
        $port = Shell::freePort();
        // No APP_FILE ('') when the options name what runs (--legacy-docroot).
        $command = [\PHP_BINARY, ...$phpFlags, $bin ?? $root . '/bin/bobbin', 'serve', ...($appFile === '' ? [] : [$root . '/' . $appFile]),
            '--listen=127.0.0.1:' . $port, '--workers=' . $workers, '--log-level=warning', ...$serveOptions];
        if ($workers === 1 && !\in_array('--single-process', $serveOptions, true) && self::hasSingleProcessOption($root)) {
            // One worker is measured as one process, as before masters supervised single workers
            // too (the master's own share is small, but it is not the server's).
            $command[] = '--single-process';
        }
        if ($cpus !== null) {
            $command = ['taskset', '-c', $cpus, ...$command];
        }
        $log = $root . '/var/bench/bobbin-' . $port . '.log';
        @\mkdir(\dirname($log), 0777, true);
        $process = Shell::start($command, $env, $log);
        $server = new self($name, $port, $process, self::describe($command, $env, $root));
        try {
            Readiness::await($server->baseUrl() . $readyPath, 30.0, $process->isRunning(...));
        } catch (\RuntimeException $e) {
            $process->stop(2.0);
            throw new \RuntimeException($e->getMessage() . "\n" . (string) @\file_get_contents($log));
        }

        return $server;
    }

    /**
     * vendor/bin/bobbin of the install bench/peers/build makes (what `composer require` gives an
     * application: no dev dependencies, an optimized autoloader), for comparing Bobbin with peers
     * that run from installs of their own.
     *
     * @throws \RuntimeException when it was not built
     */
    public static function installed(string $root): string
    {
        $bin = $root . '/' . self::INSTALLED_BIN;
        if (!\is_file($bin) || !\is_file(\dirname($bin, 2) . '/autoload.php')) {
            throw new \RuntimeException('Bobbin\'s install for the peers is not built: run bench/peers/build bobbin');
        }

        return $bin;
    }

    private static function hasSingleProcessOption(string $root): bool
    {
        return \str_contains((string) @\file_get_contents($root . '/src/Cli/ServeCommand.php'), "'single-process'");
    }

    /**
     * Does this checkout's `bin/bobbin serve` accept --workers=$workers? A build without the
     * master process rejects it at once with a usage error.
     */
    public static function supportsWorkers(string $root, int $workers): bool
    {
        try {
            $server = self::start($root, 'probe', 'examples/hello.php', null, $workers, [], '/');
        } catch (\RuntimeException) {
            return false;
        }
        $server->stop();

        return true;
    }

    public function name(): string
    {
        return $this->name;
    }

    public function baseUrl(): string
    {
        return 'http://127.0.0.1:' . $this->port;
    }

    public function rootPids(): array
    {
        return [$this->process->pid];
    }

    public function command(): string
    {
        return $this->command;
    }

    public function stop(): void
    {
        $this->process->stop(20.0);
    }

    /** stop(), telling how the server ended: its exit code (0: a clean stop). */
    public function stopWithCode(): int
    {
        return $this->process->stop(20.0)->exitCode;
    }

    /**
     * @param list<string> $command
     * @param array<string, string> $env
     */
    private static function describe(array $command, array $env, string $root): string
    {
        $shown = [];
        foreach ($env as $key => $value) {
            $shown[] = $key . '=' . ($key === 'DATABASE_URL' ? (\str_contains($value, 'host=127.0.0.1') ? '"$(scripts/pg url --tcp)"' : '"$(scripts/pg url)"') : \escapeshellarg($value));
        }
        $text = \implode(' ', $shown) . ' ' . Shell::quote($command);

        return \trim(\str_replace([$root . '/', \PHP_BINARY], ['', 'php'], $text));
    }
}
