<?php

declare(strict_types=1);

/*
 * A scripted fake Redis server for what a real one cannot show: php fake-redis.php SCENARIO.
 * Prints "port N", accepts one connection, answers HELLO as Redis 7 does in RESP3, then plays
 * the scenario on the next command:
 *   cut        half of a bulk reply, then the connection closes
 *   malformed  bytes that are no RESP reply
 *   silent     nothing, ever (the connection stays open)
 *   extra      a reply to the command and one more nobody asked for
 *   reset      no next command: right after HELLO the connection is reset (RST), unread
 *   garbage-then-good  garbage to the first connection's command, then a second connection served
 */

$scenario = $argv[1] ?? 'cut';
$server = stream_socket_server('tcp://127.0.0.1:0', $errno, $error);
if ($server === false) {
    fwrite(STDOUT, "error $error\n");
    exit(1);
}
$name = (string) stream_socket_get_name($server, false);
fwrite(STDOUT, 'port ' . substr($name, strrpos($name, ':') + 1) . "\n");
fclose(STDOUT);

if ($scenario === 'garbage-then-good') {
    // The first connection's first command gets garbage and the connection is closed; the
    // second is served, every command answered "yes" (a client must open it, never reuse the first).
    $hello = "%3\r\n\$6\r\nserver\r\n\$5\r\nredis\r\n\$7\r\nversion\r\n\$5\r\n7.0.0\r\n\$5\r\nproto\r\n:3\r\n";
    for ($connection = 1; $connection <= 2; $connection++) {
        $client = @stream_socket_accept($server, 30);
        if ($client === false) {
            exit(1);
        }
        for ($command = 0; ($buffer = readCommand($client)) !== null; $command++) {
            fwrite($client, match (true) {
                $command === 0 => $hello,
                $connection === 1 => "\$3\r\nab\x00garbage\r\n",
                default => "\$3\r\nyes\r\n",
            });
            if ($connection === 1 && $command === 1) {
                break;
            }
        }
        fclose($client);
    }
    exit(0);
}

/** @param resource $client */
function readCommand($client): ?string
{
    $buffer = '';
    while (($line = fgets($client)) !== false) {
        $buffer .= $line;
        if (preg_match('/^\*(\d+)\r\n/', $buffer, $m) === 1 && substr_count($buffer, "\r\n") >= 1 + 2 * (int) $m[1]) {
            return $buffer;
        }
    }

    return null;
}

$client = @stream_socket_accept($server, 30);
if ($client === false) {
    exit(1);
}
$readCommand = static function () use ($client): string {
    $buffer = '';
    while (($line = fgets($client)) !== false) {
        $buffer .= $line;
        if (preg_match('/^\*(\d+)\r\n/', $buffer, $m) === 1 && substr_count($buffer, "\r\n") >= 1 + 2 * (int) $m[1]) {
            return $buffer;
        }
    }
    exit(0);
};
$readCommand(); // HELLO
fwrite($client, "%3\r\n\$6\r\nserver\r\n\$5\r\nredis\r\n\$7\r\nversion\r\n\$5\r\n7.0.0\r\n\$5\r\nproto\r\n:3\r\n");
if ($scenario === 'reset') {
    // SO_LINGER 0: close() sends RST, so the client's next write fails instead of being taken.
    $socket = socket_import_stream($client);
    socket_set_option($socket, SOL_SOCKET, SO_LINGER, ['l_onoff' => 1, 'l_linger' => 0]);
    socket_close($socket);
    usleep(500_000);
    exit(0);
}
$readCommand();
switch ($scenario) {
    case 'cut':
        fwrite($client, "\$10\r\nhalf");
        usleep(50_000);
        fclose($client);
        break;
    case 'malformed':
        fwrite($client, "<html>oops</html>\r\n");
        usleep(200_000);
        break;
    case 'silent':
        sleep(30);
        break;
    case 'extra':
        fwrite($client, "+OK\r\n+SURPRISE\r\n");
        usleep(200_000);
        break;
}
