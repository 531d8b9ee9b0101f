<?php

declare(strict_types=1);

/**
 * A scripted fake NATS server for what a real one cannot show: a server that goes silent after
 * the handshake (no PONG), or sends a malformed frame. Serves one scenario per connection with
 * blocking I/O, in its own process (FakeNatsServer starts it); every connection after the first
 * is served as a plain, well-behaved server would greet and PONG (so a reconnect succeeds).
 *
 *   php fake-nats.php SCENARIO     prints "port N" once it listens
 */

$scenario = $argv[1] ?? '';
$server = \stream_socket_server('tcp://127.0.0.1:0');
if ($server === false) {
    exit(1);
}
$name = (string) \stream_socket_get_name($server, false);
echo 'port ', \substr($name, \strrpos($name, ':') + 1), "\n";
\fflush(\STDOUT);
$connections = 0;
$clients = [];
while (true) {
    $read = [$server, ...$clients];
    $write = $except = null;
    if (@\stream_select($read, $write, $except, 30) < 1) {
        exit(0);
    }
    foreach ($read as $stream) {
        if ($stream === $server) {
            $client = @\stream_socket_accept($server, 1);
            if ($client === false) {
                continue;
            }
            $connections++;
            \fwrite($client, 'INFO {"server_id":"FAKE","version":"2.9.10","proto":1,"headers":true,"max_payload":1048576,"connection":' . $connections . "}\r\n");
            $clients[(int) $client] = $client;
            continue;
        }
        $data = @\fread($stream, 65536);
        if ($data === false || $data === '') {
            unset($clients[(int) $stream]);
            \fclose($stream);
            continue;
        }
        $first = $connections === 1 && \array_key_first($clients) === (int) $stream;
        foreach (\explode("\r\n", $data) as $line) {
            if ($line !== 'PING') {
                continue;
            }
            static $pings = [];
            $pings[(int) $stream] = ($pings[(int) $stream] ?? 0) + 1;
            if ($first && $pings[(int) $stream] > 1) {
                match ($scenario) {
                    'silent' => null, // the handshake's PING was answered; later ones never are
                    'garbage' => \fwrite($stream, "MSG broken\r\nthis is not NATS\r\n"),
                    default => \fwrite($stream, "PONG\r\n"),
                };
                continue;
            }
            \fwrite($stream, "PONG\r\n");
        }
    }
}
