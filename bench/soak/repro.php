<?php

declare(strict_types=1);

/*
 * bench/soak/repro.php — the two findings of the soak (docs/PROCESS.md, "Soak, measured"),
 * each reproduced deterministically with one worker:
 *
 * 1. A write in the application's hands when another request ends the worker is answered 503
 *    with Retry-After, and is committed all the same: the statement was already with
 *    PostgreSQL, which finishes it after the worker is gone. Here the INSERT is held by an
 *    uncommitted INSERT of the same number in another session, the worker is ended by
 *    GET /soak/exit, then the other session rolls back and lets the INSERT through.
 * 2. A worker ended while a GET /sleep (pg_sleep(1)) is in flight on it lingers until that
 *    query is over: closing the pooled connection (pg_close) waits for the query's result.
 * 3. A connection the worker had accepted but whose request had not arrived yet is closed when
 *    the worker ends; the request sent a moment later gets no answer (the soak's one probe
 *    without an answer in 30 minutes).
 *
 *   php bench/soak/repro.php      (uses this checkout's embedded PostgreSQL, scripts/pg)
 *
 * Prints what happened; exits 1 when either defect shows.
 */

namespace Bobbin\Bench\Soak;

$root = \dirname(__DIR__, 2);
require __DIR__ . '/lib/HttpClient.php';

\exec(\escapeshellarg("$root/scripts/pg") . ' start >/dev/null 2>&1; ' . \escapeshellarg("$root/scripts/pg") . ' url', $lines);
$url = \trim(\implode('', $lines));
$database = \pg_connect($url, \PGSQL_CONNECT_FORCE_NEW) ?: exit("no database\n");
\pg_query($database, (string) \file_get_contents("$root/apps/aircraft/schema.sql"));

$port = freePort();
$directory = "$root/var/soak/repro-" . \getmypid();
@\mkdir($directory, 0777, true);
$server = \proc_open(
    [\PHP_BINARY, "$root/bin/bobbin", 'serve', "$root/bench/soak/app.php", '--workers=1', '--job-workers=0', "--listen=127.0.0.1:$port", "--pid-file=$directory/pid"],
    [0 => ['file', '/dev/null', 'r'], 1 => ['file', "$directory/server.log", 'w'], 2 => ['file', "$directory/server.log", 'a']],
    $pipes,
    null,
    ['DATABASE_URL' => $url] + \getenv(),
);
$defects = 0;
try {
    workerPid($directory, 0);

    // 1. The write answered 503 that the database has.
    $number = 'REPRO-' . \bin2hex(\random_bytes(4));
    \pg_query($database, 'BEGIN');
    \pg_query_params($database, "INSERT INTO aircraft (number, title, serial_number, assembly_date, added_at) VALUES (\$1, 'holder', 'S', '2020-01-01', '2020-01-01')", [$number]);
    $post = \proc_open([\PHP_BINARY, '-r', \sprintf(
        'require %s; $c = new Bobbin\Bench\Soak\HttpClient("127.0.0.1", %d); $r = $c->request("POST", "/aircraft", ["Content-Type" => "application/json"], %s); echo $r["status"], " ", $r["body"];',
        \var_export(__DIR__ . '/lib/HttpClient.php', true),
        $port,
        \var_export(\json_encode(['number' => $number, 'title' => 'the POST', 'serial_number' => 'S1', 'assembly_date' => '2020-02-29', 'added_at' => '2024-01-31']), true),
    )], [1 => ['pipe', 'w']], $postPipes);
    \usleep(500_000); // the POST's INSERT now waits for the other session's
    $exit = (new HttpClient('127.0.0.1', $port))->request('GET', '/soak/exit', [], '', true);
    $answer = \trim((string) \stream_get_contents($postPipes[1]));
    \proc_close($post);
    \pg_query($database, 'ROLLBACK');
    \usleep(300_000); // PostgreSQL runs the INSERT the ended worker left behind, and commits it
    $stored = \pg_fetch_result(\pg_query_params($database, 'SELECT title FROM aircraft WHERE number = $1', [$number]), 0, 0);
    \printf("1. POST /aircraft %s held by another session; GET /soak/exit answered %d; the POST was answered: %s\n", $number, $exit['status'], $answer);
    \printf("   the row afterwards: %s\n", $stored === false ? 'none' : "\"$stored\"");
    if (\str_starts_with($answer, '503') && $stored === 'the POST') {
        echo "   DEFECT: the write was answered 503 (try again) and is in the database\n";
        $defects++;
    }
    \pg_query_params($database, 'DELETE FROM aircraft WHERE number = $1', [$number]);

    // 2. The ended worker lingers while a /sleep's query runs.
    foreach ([false, true] as $withSleep) {
        $worker = workerPid($directory, 0);
        $sleep = null;
        if ($withSleep) {
            $sleep = \stream_socket_client("tcp://127.0.0.1:$port");
            \fwrite($sleep, "GET /sleep HTTP/1.1\r\nHost: x\r\n\r\n");
            \usleep(200_000);
        }
        $at = \microtime(true);
        $exit = (new HttpClient('127.0.0.1', $port))->request('GET', '/soak/exit', [], '', true);
        $answered = \microtime(true) - $at;
        while (\file_exists("/proc/$worker") && \microtime(true) - $at < 5) {
            \usleep(2_000);
        }
        $gone = \microtime(true) - $at;
        \printf("2. %s: GET /soak/exit answered %d after %.3f s; worker %d gone after %.3f s\n", $withSleep ? 'with a GET /sleep in flight' : 'alone', $exit['status'], $answered, $worker, $gone);
        if ($sleep !== null) {
            \fclose($sleep);
            if ($gone > 0.5) {
                echo "   DEFECT: the ended worker lingered while the /sleep's query ran (see the log: \"held the loop\")\n";
                $defects++;
            }
        }
        workerPid($directory, $worker);
    }

    // 3. A fresh connection the worker accepted before its request arrived meets a closed socket.
    workerPid($directory, 0);
    $fresh = \stream_socket_client("tcp://127.0.0.1:$port");
    \usleep(200_000); // accepted by the worker, nothing sent yet
    $exit = (new HttpClient('127.0.0.1', $port))->request('GET', '/soak/exit', [], '', true);
    \usleep(100_000);
    $written = @\fwrite($fresh, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    \stream_set_timeout($fresh, 5);
    $reply = (string) @\fread($fresh, 1024);
    \printf("3. a connection opened before GET /soak/exit (answered %d), its request sent after: %s\n", $exit['status'], $reply === '' ? 'no answer (closed)' : \strtok($reply, "\r"));
    if ($reply === '') {
        echo "   DEFECT?: a fresh client whose request came a moment late got no answer at all (docs/PROCESS.md: idle connections are closed)\n";
        $defects++;
    }
} finally {
    \proc_terminate($server);
    \proc_close($server);
}
echo "server log: $directory/server.log\n";
exit($defects === 0 ? 0 : 1);

/** The pid of the one HTTP worker once it is ready and is not $not. */
function workerPid(string $directory, int $not): int
{
    $deadline = \microtime(true) + 20;
    do {
        $status = \json_decode((string) @\file_get_contents("$directory/pid.status.json"), true);
        foreach (\is_array($status) ? $status['workers'] : [] as $worker) {
            if ($worker['state'] === 'ready' && (int) $worker['pid'] !== $not && \file_exists('/proc/' . $worker['pid'])) {
                return (int) $worker['pid'];
            }
        }
        \usleep(50_000);
    } while (\microtime(true) < $deadline);
    throw new \RuntimeException('no ready worker');
}

function freePort(): int
{
    $server = \stream_socket_server('tcp://127.0.0.1:0') ?: throw new \RuntimeException('no port');
    $name = (string) \stream_socket_get_name($server, false);
    \fclose($server);

    return (int) \substr($name, (int) \strrpos($name, ':') + 1);
}
