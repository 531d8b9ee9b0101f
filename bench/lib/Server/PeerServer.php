<?php

declare(strict_types=1);

namespace Bobbin\Bench\Server;

use Bobbin\Bench\RunningCommand;
use Bobbin\Bench\Shell;

/**
 * A peer server built by bench/peers/build (Swoole, Workerman, AMPHP) running one of the apps
 * under bench/peers/<peer>/: started here pinned like Bobbin, with the PHP settings Bobbin
 * relaunches itself with (opcache and the tracing JIT), and stopped with SIGTERM.
 */
final class PeerServer implements Server
{
    /** What `bin/bobbin serve` runs with: Bobbin\Cli\OpcacheRelaunch::SETTINGS, read from the checkout. */
    private const RELAUNCH_CLASS = 'src/Cli/OpcacheRelaunch.php';

    private function __construct(
        private readonly string $name,
        private readonly int $port,
        private readonly RunningCommand $process,
        private readonly string $command,
    ) {
    }

    /** The peers bench/peers/build knows, and whether this checkout has built each. */
    public static function built(string $root, string $peer): bool
    {
        return match ($peer) {
            'swoole' => \is_file("$root/var/peers/swoole/swoole.so"),
            default => \is_file("$root/var/peers/$peer/vendor/autoload.php"),
        };
    }

    /**
     * @param string $app hello or crud (bench/peers/<peer>/<app>.php)
     * @param array<string, string> $env
     */
    public static function start(string $root, string $peer, string $app, ?string $cpus, array $env, string $readyPath): self
    {
        if (!self::built($root, $peer)) {
            throw new \RuntimeException("$peer is not built: run bench/peers/build $peer");
        }
        $port = Shell::freePort();
        $flags = [];
        foreach (self::phpSettings($root) as $name => $value) {
            \array_push($flags, '-d', "$name=$value");
        }
        if ($peer === 'swoole') {
            \array_push($flags, '-d', "extension=$root/var/peers/swoole/swoole.so");
        }
        $command = [\PHP_BINARY, ...$flags, "$root/bench/peers/$peer/$app.php", (string) $port];
        if ($cpus !== null) {
            $command = ['taskset', '-c', $cpus, ...$command];
        }
        $log = "$root/var/bench/peer-$peer-$app-$port.log";
        @\mkdir(\dirname($log), 0777, true);
        $process = Shell::start($command, $env, $log);
        $shown = \trim((isset($env['DATABASE_URL']) ? 'DATABASE_URL="$(scripts/pg url --tcp)" ' : '')
            . \str_replace([$root . '/', \PHP_BINARY], ['', 'php'], Shell::quote($command)));
        $server = new self($peer, $port, $process, $shown);
        try {
            Readiness::await($server->baseUrl() . $readyPath, 30.0, $process->isRunning(...));
        } catch (\RuntimeException $e) {
            $process->stop(2.0);
            throw new \RuntimeException($e->getMessage() . "\n" . (string) @\file_get_contents($log));
        }

        return $server;
    }

    /** @return array<string, string> */
    private static function phpSettings(string $root): array
    {
        if (!\class_exists(\Bobbin\Cli\OpcacheRelaunch::class, false)) {
            require_once $root . '/' . self::RELAUNCH_CLASS;
        }

        return \Bobbin\Cli\OpcacheRelaunch::SETTINGS;
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
        $this->process->stop(10.0);
    }
}
