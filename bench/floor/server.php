<?php

declare(strict_types=1);

/*
 * php bench/floor/server.php PORT
 *
 * The pure-PHP floor for a plaintext keep-alive request on this machine: one process,
 * stream_select() over the listening socket and its clients, and per complete request head
 * ("\r\n\r\n") one fixed response. No parsing, no validation, no timeouts, no limits, no
 * objects — nothing a real server may leave out. What Bobbin spends per request beyond this is
 * its own cost; what this spends is PHP's and the kernel's. Not a server to use: an instrument.
 */

$port = (int) ($argv[1] ?? 0);
$server = \stream_socket_server("tcp://127.0.0.1:$port", $code, $message);
if ($server === false) {
    \fwrite(\STDERR, "listen: $message\n");
    exit(1);
}
\stream_set_blocking($server, false);
$response = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!";
$clients = [];
$buffers = [];
while (true) {
    $read = $clients;
    $read[] = $server;
    $write = $except = null;
    if (\stream_select($read, $write, $except, null) === false) {
        continue;
    }
    foreach ($read as $socket) {
        if ($socket === $server) {
            $client = @\stream_socket_accept($server, 0);
            if ($client !== false) {
                \stream_set_blocking($client, false);
                \stream_set_read_buffer($client, 0);
                $clients[(int) $client] = $client;
                $buffers[(int) $client] = '';
            }
            continue;
        }
        $id = (int) $socket;
        $data = @\fread($socket, 65536);
        if ($data === false || $data === '') {
            if ($data === false || \feof($socket)) {
                \fclose($socket);
                unset($clients[$id], $buffers[$id]);
            }
            continue;
        }
        $buffer = $buffers[$id] . $data;
        $complete = \substr_count($buffer, "\r\n\r\n");
        if ($complete > 0) {
            $buffer = \substr($buffer, \strrpos($buffer, "\r\n\r\n") + 4);
            @\fwrite($socket, $complete === 1 ? $response : \str_repeat($response, $complete));
        }
        $buffers[$id] = $buffer;
    }
}
