<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Http;

use Bobbin\Tests\Support\Process\BobbinChild;

/**
 * `bin/bobbin serve` in a child process on a port the OS picks (--listen=127.0.0.1:0); the
 * port is read from the "Listening on" log line. Stopped by its PID only.
 */
final class ServerProcess
{
    private readonly BobbinChild $child;
    public readonly string $address;
    public readonly int $port;
    public readonly int $pid;

    /**
     * @param list<string> $options extra command-line options
     * @param array<string, string> $environment
     * @param list<string> $phpOptions
     */
    private function __construct(string $appFile, array $options, array $environment, ?int $fileLimit, array $phpOptions)
    {
        $this->child = new BobbinChild(\array_merge(['serve'], $appFile === '' ? [] : [$appFile], ['--listen=127.0.0.1:0'], $options), $environment, $fileLimit, $phpOptions);
        $this->pid = $this->child->pid;
        $this->address = $this->child->awaitLog('/Listening on (\S+)/', 15.0, 'bin/bobbin serve did not start')[1];
        $this->port = (int) \substr($this->address, (int) \strrpos($this->address, ':') + 1);
    }

    /**
     * @param list<string> $options extra command-line options
     * @param string $appFile '' for none (--legacy-docroot)
     * @param array<string, string> $environment
     * @param list<string> $phpOptions PHP's own, before bin/bobbin (`-d name=value`)
     */
    public static function start(array $options = [], string $appFile = __DIR__ . '/test-app.php', array $environment = [], ?int $fileLimit = null, array $phpOptions = []): self
    {
        return new self($appFile, $options, $environment, $fileLimit, $phpOptions);
    }

    /**
     * Runs `bin/bobbin` to completion (for commands expected to fail fast).
     *
     * @param list<string> $arguments after bin/bobbin
     * @param array<string, string> $environment
     * @return array{int, string, string} exit code, stdout, stderr
     */
    public static function runToCompletion(array $arguments, array $environment = [], float $timeout = 15.0): array
    {
        return BobbinChild::runToCompletion($arguments, $environment, $timeout);
    }

    public function url(string $path = '/'): string
    {
        return 'http://' . $this->address . $path;
    }

    /** Sends SIGTERM and waits; returns the exit code. */
    public function stop(float $timeout = 15.0): int
    {
        return $this->child->stop($timeout);
    }

    public function signal(int $signal): void
    {
        $this->child->signal($signal);
    }

    /** Waits for the process to exit by itself; returns the exit code. */
    public function wait(float $timeout = 15.0): int
    {
        return $this->child->wait($timeout);
    }

    public function isRunning(): bool
    {
        return $this->child->isRunning();
    }

    /** Everything the server logged so far. */
    public function log(): string
    {
        return $this->child->log();
    }

    public function kill(): void
    {
        $this->child->kill();
    }
}
