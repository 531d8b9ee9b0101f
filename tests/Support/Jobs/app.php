<?php

declare(strict_types=1);

/*
 * An APP_FILE for the jobs tests: endpoints that submit tasks through Jobs::shared() with the
 * request's cancellation, and answer with what came back as JSON.
 *   GET /echo?v=X          EchoTask: {"value": X, "pid": job worker pid, "server": this pid}
 *   GET /slow?s=SECONDS    SlowTask (its own time limit: 60 s)
 *   GET /sleeping?s=S      SleepingEchoTask (the server's --job-timeout applies)
 *   GET /bootstrapped      BootstrapProbeTask: what --job-bootstrap left in the job worker
 *   GET /stats             Jobs::shared()->statistics()
 *   GET /health            ok, without any task
 */

use Bobbin\Http\Message\Response;
use Bobbin\Http\RequestCancellation;
use Bobbin\Jobs\JobException;
use Bobbin\Jobs\Jobs;
use Bobbin\Tests\Support\Jobs\BootstrapProbeTask;
use Bobbin\Tests\Support\Jobs\EchoTask;
use Bobbin\Tests\Support\Jobs\SleepingEchoTask;
use Bobbin\Tests\Support\Jobs\SlowTask;
use Psr\Http\Message\ServerRequestInterface;

require_once \dirname(__DIR__, 3) . '/vendor/autoload.php';

$jobs = Jobs::shared();

return static function (ServerRequestInterface $request) use ($jobs): Response {
    $query = $request->getQueryParams();
    $cancellation = RequestCancellation::of($request);
    $json = static fn (mixed $data, int $status = 200): Response => new Response($status, ['Content-Type' => 'application/json'], \json_encode($data, \JSON_THROW_ON_ERROR));
    try {
        return match ($request->getUri()->getPath()) {
            '/health' => new Response(200, [], 'ok'),
            '/echo' => $json(['server' => \getmypid()] + $jobs->submit(new EchoTask((string) ($query['v'] ?? '')), $cancellation)->await()),
            '/sleeping' => $json($jobs->submit(new SleepingEchoTask((float) ($query['s'] ?? 0.1)), $cancellation)->await()),
            '/slow' => $json($jobs->submit(new SlowTask(1, (float) ($query['s'] ?? 0.1)), $cancellation)->await()),
            '/bootstrapped' => $json($jobs->submit(new BootstrapProbeTask(), $cancellation)->await()),
            '/stats' => $json($jobs->statistics()->toArray()),
            default => new Response(404, [], 'not found'),
        };
    } catch (JobException $error) {
        return $json(['error' => $error::class, 'message' => $error->getMessage()], 500);
    }
};
