<?php

declare(strict_types=1);

/*
 * The fake PostgreSQL server as a child process (FakePostgresServer starts it): listens on
 * 127.0.0.1 on a port the OS picks, prints "port N" on stdout, then serves any number of
 * sessions at once, each a FakePostgresSession with the fault named by the first argument,
 * until it is signalled.
 *
 *   php fake-postgres.php terminate-after-answer
 */

use Bobbin\Tests\Support\Postgres\FakeFault;
use Bobbin\Tests\Support\Postgres\FakePostgresSession;

require \dirname(__DIR__, 3) . '/vendor/autoload.php';
Bobbin\Async\Async::installLoopDriver(); // docs/ASYNC.md: the autoloader leaves the loop alone

/** TerminateWhileIdle: the FATAL this long after the answer, the end of the stream this long after the FATAL. */
const FAREWELL_DELAY = 0.05;
const CLOSE_DELAY = 1.0;

$fault = FakeFault::from($argv[1] ?? 'none');
$server = \stream_socket_server('tcp://127.0.0.1:0', $errno, $error);
if ($server === false) {
    \fwrite(\STDERR, "fake-postgres: cannot listen: $error\n");
    exit(1);
}
$address = (string) \stream_socket_get_name($server, false);
echo 'port ', \substr($address, (int) \strrpos($address, ':') + 1), "\n";

/** @var array<int, array{resource, FakePostgresSession}> $sessions */
$sessions = [];
/** @var array<int, float> $farewellAt session => when to send its FATAL */
$farewellAt = [];
/** @var array<int, float> $closeAt session => when to close it */
$closeAt = [];
$pid = 40000;
$close = static function (int $id) use (&$sessions, &$farewellAt, &$closeAt): void {
    \fclose($sessions[$id][0]);
    unset($sessions[$id], $farewellAt[$id], $closeAt[$id]);
};
while (true) {
    $now = \microtime(true);
    foreach ($farewellAt as $id => $at) {
        if ($at <= $now) {
            \fwrite($sessions[$id][0], $sessions[$id][1]->farewell());
            unset($farewellAt[$id]);
            $closeAt[$id] = $now + CLOSE_DELAY;
        }
    }
    foreach ($closeAt as $id => $at) {
        if ($at <= $now) {
            $close($id);
        }
    }
    $read = [$server];
    foreach ($sessions as [$socket]) {
        $read[] = $socket;
    }
    $write = $except = null;
    $next = \min([...\array_values($farewellAt), ...\array_values($closeAt), $now + 3600.0]);
    $wait = \max(0.0, $next - \microtime(true));
    if (\stream_select($read, $write, $except, (int) $wait, (int) (($wait - (int) $wait) * 1e6)) === false) {
        continue; // interrupted by a signal
    }
    foreach ($read as $ready) {
        if ($ready === $server) {
            $socket = @\stream_socket_accept($server, 0);
            if ($socket !== false) {
                \stream_set_read_buffer($socket, 0);
                $sessions[(int) $socket] = [$socket, new FakePostgresSession($fault, ++$pid)];
            }
            continue;
        }
        $id = (int) $ready;
        [$socket, $session] = $sessions[$id];
        $bytes = @\fread($socket, 65536);
        if ($bytes === '' || $bytes === false) {
            $close($id);
            continue;
        }
        $answer = $session->receive($bytes);
        if ($answer !== '') {
            // One write: the client finds the answer and what follows it together, as it
            // would from a backend that flushed its answer and then died.
            \fwrite($socket, $answer);
        }
        if ($session->isClosed()) {
            $close($id);
        } elseif ($session->owesFarewell() && !isset($farewellAt[$id]) && !isset($closeAt[$id])) {
            $farewellAt[$id] = \microtime(true) + FAREWELL_DELAY;
        }
    }
}
