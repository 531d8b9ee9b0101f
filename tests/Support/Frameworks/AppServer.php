<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Frameworks;

use Bobbin\Tests\Support\EmbeddedPostgres;
use Bobbin\Tests\Support\Http\ServerProcess;

/** An example application served by Bobbin (in some concurrency mode) or by nginx + PHP-FPM. */
final class AppServer
{
    private function __construct(
        public readonly string $name,
        public readonly string $host,
        public readonly int $port,
        private readonly ?ServerProcess $bobbin,
        private readonly bool $fpm,
    ) {
    }

    public static function bobbin(ExampleApp $app, string $concurrency = ''): self
    {
        $environment = ['DATABASE_URL' => EmbeddedPostgres::connectionString()];
        if ($concurrency !== '') {
            $environment['BOBBIN_CONCURRENCY'] = $concurrency;
        }
        $server = ServerProcess::start(['--workers=1'], $app->bobbinAppFile(), $environment);

        return new self("Bobbin, {$app->value}" . ($concurrency !== '' ? ", $concurrency" : ''), '127.0.0.1', $server->port, $server, false);
    }

    /**
     * nginx + PHP-FPM with more children than the suite has concurrent clients: nginx keeps up
     * to 32 FastCGI connections alive and a child stays with its connection, so a request
     * beyond the number of children can wait for good on a connection no child will take.
     */
    public static function fpm(ExampleApp $app): self
    {
        $port = self::freePort();
        self::ctl(['start', "--port=$port", '--children=8', '--front-controller=' . $app->fpmFrontController()]);

        return new self("nginx + PHP-FPM, {$app->value}", '127.0.0.1', $port, null, true);
    }

    public function stop(): void
    {
        $this->bobbin?->stop();
        if ($this->fpm) {
            self::ctl(['stop', "--port={$this->port}"]);
        }
    }

    /** @param list<string> $arguments */
    private static function ctl(array $arguments): void
    {
        $line = \sprintf(
            'DATABASE_URL=%s %s %s 2>&1',
            \escapeshellarg(EmbeddedPostgres::connectionString()),
            \escapeshellarg(\dirname(__DIR__, 3) . '/apps/aircraft/fpm/ctl'),
            \implode(' ', \array_map('escapeshellarg', $arguments)),
        );
        \exec($line, $output, $status);
        if ($status !== 0) {
            throw new \RuntimeException("fpm/ctl {$arguments[0]} failed:\n" . \implode("\n", $output));
        }
    }

    private static function freePort(): int
    {
        $socket = \stream_socket_server('tcp://127.0.0.1:0');
        \assert($socket !== false);
        $name = (string) \stream_socket_get_name($socket, false);
        \fclose($socket);

        return (int) \substr($name, \strrpos($name, ':') + 1);
    }

    public function isBobbin(): bool
    {
        return $this->bobbin !== null;
    }

    public function url(string $target): string
    {
        return "http://{$this->host}:{$this->port}$target";
    }

    /** What the server logged (Bobbin only). */
    public function log(): string
    {
        return $this->bobbin?->log() ?? '';
    }
}
