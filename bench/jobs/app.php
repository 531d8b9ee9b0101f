<?php

declare(strict_types=1);

/*
 * APP_FILE of the jobs benchmark (bench/jobs/run.php), no database:
 *   GET /health                                  ok (the light request)
 *   GET /chart?mode=jobs|inline&width=&height=   the aircraft fleet chart of a fixed fleet, drawn
 *                                                in a job worker or right here in the HTTP worker
 *   GET /roundtrip?n=N&concurrency=C&mode=jobs|inline   N empty tasks, C at a time; answers
 *                                                {"seconds": …, "tasks": N}
 *   GET /batch?n=N&concurrency=C&width=&height=  N charts through the job workers, C at a time
 */

use Bobbin\Apps\Aircraft\Chart\FleetChartTask;
use Bobbin\Bench\Jobs\EmptyTask;
use Bobbin\Http\Message\Response;
use Bobbin\Http\RequestCancellation;
use Bobbin\Jobs\Jobs;
use Psr\Http\Message\ServerRequestInterface;

require_once \dirname(__DIR__, 2) . '/vendor/autoload.php';
require_once __DIR__ . '/tasks.php';

$fleet = [];
for ($year = 1985; $year <= 2024; $year++) {
    $fleet[$year] = 40 + (int) (30 * \sin($year / 3)) + ($year - 1985) * 2;
}
$jobs = Jobs::shared();
$inline = Jobs::inProcess();

return static function (ServerRequestInterface $request) use ($fleet, $jobs, $inline): Response {
    $query = $request->getQueryParams();
    $int = static fn (string $name, int $default): int => \max(1, (int) ($query[$name] ?? $default));
    $via = ($query['mode'] ?? 'jobs') === 'inline' ? $inline : $jobs;
    $cancellation = RequestCancellation::of($request);
    switch ($request->getUri()->getPath()) {
        case '/health':
            return new Response(200, ['Content-Type' => 'text/plain'], 'ok');
        case '/chart':
            $png = $via->submit(new FleetChartTask($fleet, $int('width', 600), $int('height', 338)), $cancellation)->await();

            return new Response(200, ['Content-Type' => 'image/png'], (string) $png);
        case '/roundtrip':
        case '/batch':
            $n = $int('n', 1000);
            $concurrency = $int('concurrency', 1);
            $task = $request->getUri()->getPath() === '/batch' ? new FleetChartTask($fleet, $int('width', 600), $int('height', 338)) : new EmptyTask();
            $started = \hrtime(true);
            if ($concurrency === 1) {
                for ($i = 0; $i < $n; $i++) {
                    $via->submit($task)->await();
                }
            } else {
                $via->map(\array_fill(0, $n, $task), $concurrency);
            }

            return new Response(200, ['Content-Type' => 'application/json'], \json_encode(['seconds' => (\hrtime(true) - $started) / 1e9, 'tasks' => $n], \JSON_THROW_ON_ERROR));
        default:
            return new Response(404, [], 'not found');
    }
};
