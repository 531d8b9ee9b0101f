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
$pid = 40000;
while (true) {
    $read = [$server];
    foreach ($sessions as [$socket]) {
        $read[] = $socket;
    }
    $write = $except = null;
    if (\stream_select($read, $write, $except, null) === false) {
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
        [$socket, $session] = $sessions[(int) $ready];
        $bytes = @\fread($socket, 65536);
        if ($bytes === '' || $bytes === false) {
            unset($sessions[(int) $socket]);
            \fclose($socket);
            continue;
        }
        $answer = $session->receive($bytes);
        if ($answer !== '') {
            // One write: the client finds the answer and what follows it together, as it
            // would from a backend that flushed its answer and then died.
            \fwrite($socket, $answer);
        }
        if ($session->isClosed()) {
            unset($sessions[(int) $socket]);
            \fclose($socket);
        }
    }
}
