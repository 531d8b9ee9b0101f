<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Observability;

/**
 * Debian's Prometheus (/usr/bin/prometheus) started for one test: its configuration and storage
 * in a directory of its own under the repository's var/, listening on 127.0.0.1 at a free port,
 * scraping one target every second; its pid written beside them, and it is stopped by that pid
 * only. Queried through its HTTP API.
 */
final class PrivatePrometheus
{
    public const BINARY = '/usr/bin/prometheus';

    /** @var resource */
    private $process;
    public readonly int $pid;
    private readonly int $port;
    private bool $stopped = false;

    private function __construct(private readonly string $directory, string $target)
    {
        $probe = \stream_socket_server('tcp://127.0.0.1:0');
        if ($probe === false) {
            throw new \RuntimeException('No free port for Prometheus');
        }
        $name = (string) \stream_socket_get_name($probe, false);
        \fclose($probe);
        $this->port = (int) \substr($name, (int) \strrpos($name, ':') + 1);
        \file_put_contents($directory . '/prometheus.yml', <<<YAML
            global:
              scrape_interval: 1s
              scrape_timeout: 1s
            scrape_configs:
              - job_name: bobbin
                static_configs:
                  - targets: ['$target']
            YAML);
        $log = $directory . '/prometheus.log';
        $process = \proc_open(
            [self::BINARY, '--config.file=' . $directory . '/prometheus.yml', '--storage.tsdb.path=' . $directory . '/data',
                '--web.listen-address=127.0.0.1:' . $this->port],
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', $log, 'w'], 2 => ['file', $log, 'a']],
            $pipes,
        );
        if ($process === false) {
            throw new \RuntimeException('Cannot start Prometheus');
        }
        $this->process = $process;
        $this->pid = (int) \proc_get_status($process)['pid'];
        \file_put_contents($directory . '/prometheus.pid', $this->pid . "\n");
    }

    public function __destruct()
    {
        $this->stop();
    }

    public static function isInstalled(): bool
    {
        return \is_executable(self::BINARY);
    }

    /** Starts it in a new directory under $parent (created), scraping http://$target/metrics. */
    public static function start(string $parent, string $target): self
    {
        $directory = $parent . '/prometheus-' . \getmypid() . '-' . \bin2hex(\random_bytes(4));
        if (!\is_dir($directory) && !\mkdir($directory, 0o777, true)) {
            throw new \RuntimeException("Cannot create $directory");
        }

        return new self($directory, $target);
    }

    /** Waits until it has scraped the target successfully. */
    public function awaitUp(float $timeout = 30.0): void
    {
        $deadline = \microtime(true) + $timeout;
        while ($this->value('up{job="bobbin"}') !== 1.0) {
            if (\microtime(true) > $deadline) {
                throw new \RuntimeException('Prometheus never scraped its target: ' . $this->log());
            }
            \usleep(200_000);
        }
    }

    /** An instant query's first value; null when the result is empty. */
    public function value(string $expression): ?float
    {
        $value = $this->query('query', ['query' => $expression])[0]['value'][1] ?? null;

        return \is_string($value) ? (float) $value : null;
    }

    /**
     * An instant query's first value at a past time (Unix seconds); null when the result is empty.
     */
    public function valueAt(string $expression, float $time): ?float
    {
        $value = $this->query('query', ['query' => $expression, 'time' => \sprintf('%.3f', $time)])[0]['value'][1] ?? null;

        return \is_string($value) ? (float) $value : null;
    }

    /**
     * The raw samples a range selector gives (e.g. `metric{label="x"}[1h]`) of its first series, oldest first.
     *
     * @return list<array{float, float}> time (Unix seconds), value
     */
    public function samples(string $rangeSelector): array
    {
        $samples = [];
        foreach ($this->query('query', ['query' => $rangeSelector])[0]['values'] ?? [] as $point) {
            $samples[] = [(float) $point[0], (float) $point[1]];
        }

        return $samples;
    }

    /**
     * A range query's values of its first series, oldest first.
     *
     * @return list<float>
     */
    public function range(string $expression, float $start, float $end, float $step = 0.5): array
    {
        $values = [];
        foreach ($this->query('query_range', ['query' => $expression, 'start' => $start, 'end' => $end, 'step' => $step])[0]['values'] ?? [] as $point) {
            $values[] = (float) $point[1];
        }

        return $values;
    }

    /**
     * @param array<string, string|float> $parameters
     * @return list<array<string, mixed>> the API's data.result
     */
    private function query(string $endpoint, array $parameters): array
    {
        $response = @\file_get_contents('http://127.0.0.1:' . $this->port . '/api/v1/' . $endpoint . '?' . \http_build_query($parameters));
        $data = \is_string($response) ? \json_decode($response, true) : null;
        $result = \is_array($data) ? ($data['data']['result'] ?? []) : [];

        return \is_array($result) ? \array_values($result) : [];
    }

    public function log(): string
    {
        return (string) @\file_get_contents($this->directory . '/prometheus.log');
    }

    /** Stops it by its pid and removes its directory. */
    public function stop(): void
    {
        if ($this->stopped) {
            return;
        }
        $this->stopped = true;
        \posix_kill($this->pid, \SIGTERM);
        $deadline = \microtime(true) + 10.0;
        while (\proc_get_status($this->process)['running'] && \microtime(true) < $deadline) {
            \usleep(50_000);
        }
        if (\proc_get_status($this->process)['running']) {
            \posix_kill($this->pid, \SIGKILL);
        }
        \proc_close($this->process);
        \exec('rm -rf ' . \escapeshellarg($this->directory));
    }
}
