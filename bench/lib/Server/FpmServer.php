<?php

declare(strict_types=1);

namespace Bobbin\Bench\Server;

use Bobbin\Bench\Shell;

/** nginx + PHP-FPM through apps/aircraft/fpm/ctl (static pool of $children). */
final class FpmServer implements Server
{
    /** @var list<int> */
    private array $pids;

    private function __construct(
        private readonly string $root,
        private readonly string $name,
        private readonly int $port,
        private readonly string $command,
    ) {
        $this->pids = \array_values(\array_map('intval', \array_filter(\explode("\n", \trim(
            $this->ctl(['pids', '--port=' . $port])->stdout,
        )))));
    }

    /**
     * @param array<string, string> $env
     * @param string|null $frontController path relative to the checkout; null: the aircraft app
     * @param string|null $memoryLimit the children's memory_limit (e.g. 64M); null: ctl's default
     * @param int|null $upstreamKeepalive idle FastCGI connections nginx keeps (0: one per request); null: ctl's default
     * @param string|null $docroot an application of many .php files served as its nginx guide says (ctl --docroot), instead of a front controller
     */
    public static function start(
        string $root,
        string $name,
        int $children,
        bool $persistent,
        ?string $cpus,
        array $env,
        ?string $frontController = null,
        int $nginxWorkers = 1,
        ?string $memoryLimit = null,
        ?int $upstreamKeepalive = null,
        ?string $docroot = null,
    ): self {
        $port = Shell::freePort();
        $args = ['start', '--port=' . $port, '--children=' . $children, '--nginx-workers=' . $nginxWorkers];
        if ($persistent) {
            $args[] = '--persistent';
        }
        if ($cpus !== null) {
            $args[] = '--cpus=' . $cpus;
        }
        if ($frontController !== null) {
            $args[] = '--front-controller=' . $root . '/' . $frontController;
        }
        if ($docroot !== null) {
            $args[] = '--docroot=' . $docroot;
        }
        if ($memoryLimit !== null) {
            $args[] = '--memory-limit=' . $memoryLimit;
        }
        if ($upstreamKeepalive !== null) {
            $args[] = '--upstream-keepalive=' . $upstreamKeepalive;
        }
        $result = Shell::run([$root . '/apps/aircraft/fpm/ctl', ...$args], $env, 60.0);
        if ($result->exitCode !== 0) {
            throw new \RuntimeException("apps/aircraft/fpm/ctl start failed:\n" . $result->stderr);
        }
        $shownEnv = !isset($env['DATABASE_URL']) ? '' : (\str_contains($env['DATABASE_URL'], 'host=127.0.0.1') ? 'DATABASE_URL="$(scripts/pg url --tcp)" ' : 'DATABASE_URL="$(scripts/pg url)" ');
        $command = $shownEnv . 'apps/aircraft/fpm/ctl ' . \str_replace($root . '/', '', Shell::quote($args));

        return new self($root, $name, $port, $command);
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
        return $this->pids;
    }

    public function command(): string
    {
        return $this->command;
    }

    public function stop(): void
    {
        $this->ctl(['stop', '--port=' . $this->port]);
        Shell::run(['rm', '-rf', $this->root . '/var/fpm-' . $this->port]);
    }

    /** @param list<string> $args */
    private function ctl(array $args): \Bobbin\Bench\CommandResult
    {
        return Shell::run([$this->root . '/apps/aircraft/fpm/ctl', ...$args], null, 60.0);
    }
}
