<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Metrics;

use Bobbin\Tests\Support\Http\HttpGet;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\TestCase;

/**
 * The admin listener seen by real clients: a real Prometheus scrapes a 2-worker server under
 * load and counts exactly what the load generator sent; the status page, opened in headless
 * Chromium, draws its charts and its counter rises with the traffic.
 */
final class PrometheusAndBrowserTest extends TestCase
{
    private const APP = __DIR__ . '/../../Support/Http/test-app.php';

    private ?MasterProcess $master = null;
    /** @var list<resource> */
    private array $processes = [];
    private string $workDirectory = '';

    protected function setUp(): void
    {
        $this->workDirectory = \sys_get_temp_dir() . '/bobbin-metrics-' . \bin2hex(\random_bytes(4));
        \mkdir($this->workDirectory);
    }

    protected function tearDown(): void
    {
        foreach ($this->processes as $process) {
            \proc_terminate($process);
            \proc_close($process);
        }
        $this->master?->stop();
        \exec('rm -rf ' . \escapeshellarg($this->workDirectory));
    }

    private function startMaster(): string
    {
        $this->master = MasterProcess::start(self::APP, ['--workers=2', '--admin=127.0.0.1:0']);

        return $this->master->waitForLog('/Admin on (\S+):/')[1];
    }

    private static function freePort(): int
    {
        $probe = \stream_socket_server('tcp://127.0.0.1:0');
        self::assertNotFalse($probe);
        $name = (string) \stream_socket_get_name($probe, false);
        \fclose($probe);

        return (int) \substr($name, (int) \strrpos($name, ':') + 1);
    }

    /** @param list<string> $command */
    private function spawn(array $command, string $log): void
    {
        $process = \proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['file', $log, 'w'], 2 => ['file', $log, 'a']], $pipes);
        self::assertIsResource($process);
        $this->processes[] = $process;
    }

    public function testPrometheusCountsExactlyTheRequestsTheLoadGeneratorMade(): void
    {
        if (!\is_executable('/usr/bin/prometheus') || !\is_executable('/usr/bin/ab')) {
            self::markTestSkipped('prometheus or ab is not installed (scripts/install-deps installs them)');
        }
        $admin = $this->startMaster();
        $port = self::freePort();
        \file_put_contents($this->workDirectory . '/prometheus.yml', <<<YAML
            global:
              scrape_interval: 1s
            scrape_configs:
              - job_name: bobbin
                static_configs:
                  - targets: ['$admin']
            YAML);
        $this->spawn(['/usr/bin/prometheus', '--config.file=' . $this->workDirectory . '/prometheus.yml',
            '--storage.tsdb.path=' . $this->workDirectory . '/data', '--web.listen-address=127.0.0.1:' . $port], $this->workDirectory . '/prometheus.log');
        $query = static fn (string $expression): ?float => (static function () use ($port, $expression): ?float {
            $response = @\file_get_contents("http://127.0.0.1:$port/api/v1/query?query=" . \rawurlencode($expression));
            $data = \is_string($response) ? \json_decode($response, true) : null;
            $value = $data['data']['result'][0]['value'][1] ?? null;

            return $value === null ? null : (float) $value;
        })();
        $deadline = \microtime(true) + 20.0;
        while ($query('up{job="bobbin"}') !== 1.0) {
            self::assertLessThan($deadline, \microtime(true), 'Prometheus never scraped the admin listener: ' . @\file_get_contents($this->workDirectory . '/prometheus.log'));
            \usleep(200_000);
        }

        \exec(\sprintf('ab -q -k -n 3000 -c 16 %s 2>&1', \escapeshellarg('http://' . $this->master?->address . '/')), $output, $status);
        self::assertSame(0, $status, \implode("\n", $output));
        \preg_match('/Complete requests:\s+(\d+)/', \implode("\n", $output), $m);
        self::assertSame('3000', $m[1] ?? null);

        $deadline = \microtime(true) + 20.0;
        do {
            $counted = $query('sum(bobbin_http_requests_total)');
            if ($counted === 3000.0) {
                break;
            }
            \usleep(250_000);
        } while (\microtime(true) < $deadline);
        self::assertSame(3000.0, $counted, 'what Prometheus last scraped');
        self::assertSame(2.0, $query('count(bobbin_php_heap_bytes)'), 'one heap series per worker');
    }

    public function testTheStatusPageInABrowserDrawsChartsAndItsCounterRises(): void
    {
        if (!\is_executable('/usr/bin/chromium')) {
            self::markTestSkipped('chromium is not installed (scripts/install-deps installs it)');
        }
        $admin = $this->startMaster();
        $chromium = fn (array $extra): string => (string) \shell_exec(\implode(' ', \array_map('escapeshellarg', [
            '/usr/bin/chromium', '--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
            '--disable-background-networking', '--disable-component-update', '--disable-sync', '--hide-scrollbars',
            '--user-data-dir=' . $this->workDirectory . '/chromium', '--window-size=1200,900', '--virtual-time-budget=2500',
            ...$extra, 'http://' . $admin . '/status',
        ])) . ' 2>/dev/null');
        $counter = static function (string $dom): int {
            self::assertMatchesRegularExpression('/<b id="requests">\d+<\/b>/', $dom);
            \preg_match('/<b id="requests">(\d+)<\/b>/', $dom, $m);

            return (int) $m[1];
        };
        for ($i = 0; $i < 10; $i++) {
            HttpGet::fetch((string) $this->master?->address, '/');
        }
        $first = $counter($chromium(['--dump-dom']));
        for ($i = 0; $i < 25; $i++) {
            HttpGet::fetch((string) $this->master?->address, '/');
        }
        // Traffic while the page draws, so its requests/s line has something to show.
        $this->spawn(['ab', '-q', '-k', '-t', '30', '-n', '10000000', '-c', '2', 'http://' . $this->master?->address . '/'], '/dev/null');
        \usleep(300_000);
        $screenshot = $this->workDirectory . '/status.png';
        $chromium(['--screenshot=' . $screenshot]);
        \copy($screenshot, \sys_get_temp_dir() . '/bobbin-status-page.png');
        $second = $counter($dom = $chromium(['--dump-dom']));

        self::assertGreaterThanOrEqual(10, $first);
        self::assertGreaterThan($first + 25, $second, 'the counter did not rise with the traffic');
        self::assertSame(5, \substr_count($dom, '<canvas id="chart-'), 'requests/s, latency, loop lag, memory, pool connections');
        self::assertMatchesRegularExpression('/<tbody><tr><td>\d+<\/td><td>ready<\/td>/', $dom, 'the workers table');
        self::assertFileExists($screenshot);
        self::assertGreaterThan(10_000, \filesize($screenshot), 'a blank page');
        if (\function_exists('imagecreatefrompng')) {
            $image = \imagecreatefrompng($screenshot);
            self::assertNotFalse($image);
            $green = 0;
            for ($x = 0; $x < \imagesx($image); $x += 2) {
                for ($y = 0; $y < \imagesy($image); $y += 2) {
                    $rgb = \imagecolorat($image, $x, $y);
                    if ((($rgb >> 16) & 0xff) < 0x50 && (($rgb >> 8) & 0xff) > 0x90 && ($rgb & 0xff) < 0x80) {
                        $green++;
                    }
                }
            }
            self::assertGreaterThan(20, $green, 'the requests/s line is drawn');
        }
    }
}
