<?php

declare(strict_types=1);

/*
 * Starts a Workerman HTTP worker on 127.0.0.1:PORT (argv[1]) with one worker process, its
 * pid/log files under var/peers/run/, in the foreground; used by hello.php and crud.php.
 */

use Workerman\Worker;

require dirname(__DIR__, 3) . '/var/peers/workerman/vendor/autoload.php';

/** @param \Closure(Workerman\Connection\TcpConnection, Workerman\Protocols\Http\Request): void $onMessage */
function workerman_serve(string $name, \Closure $onMessage, ?\Closure $onWorkerStart = null): never
{
    global $argv;
    $port = (int) ($argv[1] ?? 8080);
    $run = dirname(__DIR__, 3) . '/var/peers/run';
    @mkdir($run, 0777, true);
    Worker::$pidFile = "$run/workerman-$name-$port.pid";
    Worker::$logFile = "$run/workerman-$name-$port.log";
    Worker::$stdoutFile = "$run/workerman-$name-$port.stdout";
    // Under valgrind (bench/async/instructions.php) a worker needs longer than Workerman's 2 s to
    // exit and write its callgrind file before the master's SIGKILL.
    Worker::$stopTimeout = (int) (getenv('BOBBIN_PEER_STOP_TIMEOUT') ?: 2);
    $worker = new Worker('http://127.0.0.1:' . $port);
    $worker->name = "workerman-$name";
    $worker->count = 1;
    $worker->onMessage = $onMessage;
    if ($onWorkerStart !== null) {
        $worker->onWorkerStart = $onWorkerStart;
    }
    // Workerman reads its command (start, stop…) from argv.
    $argv = [$argv[0], 'start'];
    Worker::runAll();
    exit(0);
}
