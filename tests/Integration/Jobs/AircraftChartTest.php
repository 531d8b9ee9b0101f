<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Jobs;

use Bobbin\Tests\Support\EmbeddedPostgres;
use Bobbin\Tests\Support\FpmServer;
use Bobbin\Tests\Support\HttpClient;
use Bobbin\Tests\Support\HttpResponse;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\TestCase;

/**
 * The aircraft application's chart, drawn by a job worker on Bobbin and in-process under
 * nginx + PHP-FPM: the same PNG from both, from the same rows.
 */
final class AircraftChartTest extends TestCase
{
    private const APP = __DIR__ . '/../../../apps/aircraft/server.php';
    private const NUMBER_PREFIX = 'CHART-TEST-';

    private static ?MasterProcess $bobbin = null;
    private static ?FpmServer $fpm = null;

    public static function setUpBeforeClass(): void
    {
        if (!\extension_loaded('gd')) {
            self::markTestSkipped('ext-gd is not installed (php8.2-gd)');
        }
        $database = EmbeddedPostgres::connectionString();
        self::$bobbin = MasterProcess::start(self::APP, ['--workers=1', '--job-workers=1'], ['DATABASE_URL' => $database]);
        self::$fpm = FpmServer::start($database);
        EmbeddedPostgres::psql("DELETE FROM aircraft WHERE number LIKE '" . self::NUMBER_PREFIX . "%'");
        foreach ([['1931-05-01', 3], ['1932-01-15', 1], ['1934-07-30', 2]] as [$date, $count]) {
            for ($i = 0; $i < $count; $i++) {
                EmbeddedPostgres::psql(\sprintf(
                    "INSERT INTO aircraft (number, title, serial_number, assembly_date, added_at) VALUES ('%s%s-%d', 'Chart probe', 'S', '%s', '2024-01-01')",
                    self::NUMBER_PREFIX,
                    $date,
                    $i,
                    $date,
                ));
            }
        }
    }

    public static function tearDownAfterClass(): void
    {
        EmbeddedPostgres::psql("DELETE FROM aircraft WHERE number LIKE '" . self::NUMBER_PREFIX . "%'");
        self::$bobbin?->stop();
        self::$bobbin = null;
        self::$fpm?->stop();
        self::$fpm = null;
    }

    public function testBobbinAndPhpFpmDrawTheSamePngOfTheRequestedSize(): void
    {
        $bobbin = self::get(self::bobbinPort(), '/charts/fleet-by-year.png?width=640&height=360');
        $fpm = self::get(self::fpmPort(), '/charts/fleet-by-year.png?width=640&height=360');

        self::assertSame(200, $bobbin->status, $bobbin->body);
        self::assertSame('image/png', $bobbin->header('Content-Type'));
        $size = \getimagesizefromstring($bobbin->body);
        self::assertNotFalse($size);
        self::assertSame([640, 360, \IMAGETYPE_PNG], [$size[0], $size[1], $size[2]]);
        self::assertSame(200, $fpm->status, $fpm->body);
        self::assertSame('image/png', $fpm->header('Content-Type'));
        self::assertSame(\md5($fpm->body), \md5($bobbin->body), 'The two servers drew different charts');
    }

    public function testTheChartIsDrawnInAJobWorkerOnBobbin(): void
    {
        $server = self::$bobbin;
        \assert($server !== null);
        $before = self::jobWorkerTasks($server);

        self::assertSame(200, self::get(self::bobbinPort(), '/charts/fleet-by-year.png')->status);

        $deadline = \microtime(true) + 5.0;
        while (self::jobWorkerTasks($server) <= $before) {
            self::assertLessThan($deadline, \microtime(true), 'No job worker counted the chart');
            \usleep(100_000);
            $server->signal(\SIGUSR1);
        }
    }

    public function testASizeOutOfRangeIsA422WithTheFieldsRule(): void
    {
        foreach ([self::bobbinPort(), self::fpmPort()] as $port) {
            $response = self::get($port, '/charts/fleet-by-year.png?width=10&height=abc');

            self::assertSame(422, $response->status);
            self::assertSame(
                ['error' => 'Invalid query parameters', 'fields' => ['width' => 'must be an integer from 300 to 2400', 'height' => 'must be an integer from 200 to 1600']],
                \json_decode($response->body, true),
            );
        }
    }

    private static function jobWorkerTasks(MasterProcess $server): int
    {
        return (int) \array_sum(\array_column((array) ($server->status()['jobWorkers'] ?? []), 'tasks'));
    }

    private static function get(int $port, string $target): HttpResponse
    {
        return (new HttpClient('127.0.0.1', $port, 30.0))->request('GET', $target);
    }

    private static function bobbinPort(): int
    {
        \assert(self::$bobbin !== null);

        return self::$bobbin->port();
    }

    private static function fpmPort(): int
    {
        \assert(self::$fpm !== null);

        return self::$fpm->port;
    }
}
