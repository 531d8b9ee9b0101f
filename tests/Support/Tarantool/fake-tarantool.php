<?php

declare(strict_types=1);

/*
 * A scripted fake Tarantool for what no real server shows: broken frames, a console port, a
 * server that never answers, values of newer versions, streams (2.10+: call('journal') returns
 * the [type, stream id] of every request received before, from any client). Listens on 127.0.0.1 (or the unix socket
 * given as second argument), prints "port N" (or "ready"), and plays SCENARIO with each client.
 *
 *   php fake-tarantool.php SCENARIO [SOCKET]
 */

require \dirname(__DIR__, 3) . '/vendor/autoload.php';
Bobbin\Async\Async::installLoopDriver(); // docs/ASYNC.md: the autoloader leaves the loop alone

use Bobbin\MessagePack\Decoder;
use Bobbin\MessagePack\Encoder;

$scenario = $argv[1] ?? 'normal';
$socketPath = $argv[2] ?? null;
$server = \stream_socket_server($socketPath !== null ? 'unix://' . $socketPath : 'tcp://127.0.0.1:0', $errno, $error);
if ($server === false) {
    \fwrite(\STDOUT, "error $error\n");
    exit(1);
}
if ($socketPath !== null) {
    \fwrite(\STDOUT, "ready\n");
} else {
    $name = (string) \stream_socket_get_name($server, false);
    \fwrite(\STDOUT, 'port ' . \substr($name, \strrpos($name, ':') + 1) . "\n");
}
\fflush(\STDOUT);

$encoder = new Encoder();
$decoder = new Decoder();

/** A response frame as the real server builds it: 0xce + uint32 length, header, body. */
$frame = static function (int $type, int $sync, string $body) use ($encoder): string {
    $header = $encoder->encode([0 => $type, 1 => $sync, 5 => 80]);

    return "\xce" . \pack('N', \strlen($header) + \strlen($body)) . $header . $body;
};

/** The next request from the client: [type, sync, body, stream id], or null at its end. */
$read = static function ($client) use ($decoder): ?array {
    $head = \fread($client, 5);
    if ($head === false || \strlen($head) < 5) {
        return null;
    }
    $length = \unpack('N', \substr($head, 1))[1];
    $bytes = '';
    while (\strlen($bytes) < $length) {
        $more = \fread($client, $length - \strlen($bytes));
        if ($more === false || $more === '') {
            return null;
        }
        $bytes .= $more;
    }
    $offset = 0;
    $header = $decoder->decodeAt($bytes, $offset);
    $body = $offset < \strlen($bytes) ? $decoder->decodeAt($bytes, $offset) : [];

    return [$header[0], $header[1], $body, $header[0x0a] ?? 0];
};

$salt = \base64_encode(\random_bytes(32));
$greeting = \str_pad('Tarantool 2.11.0 (Binary) 0d4a4f2e-1d3a-4b5c-8d6e-7f8091a2b3c4', 63) . "\n" . \str_pad($salt, 63) . "\n";

$journal = []; // [type, stream id] of every request of every client, for call('journal')
$clients = 0;
while ($client = @\stream_socket_accept($server, -1)) {
    $clients++;
    if ($scenario === 'no-greeting') {
        \sleep(30);
        continue;
    }
    if ($scenario === 'console') {
        \fwrite($client, \str_pad('Tarantool 2.6.0 (Lua console)', 63) . "\n" . \str_pad("type 'help' for interactive help", 63) . "\n");
        \sleep(1);
        \fclose($client);
        continue;
    }
    if ($scenario === 'http') {
        \fwrite($client, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n" . \str_repeat(' ', 200));
        \fclose($client);
        continue;
    }
    \fwrite($client, $greeting);
    $served = 0;
    while (($request = $read($client)) !== null) {
        [$type, $sync, $body, $stream] = $request;
        if ($type === 0x07) { // AUTH: any password is right
            \fwrite($client, $frame(0, $sync, "\x80"));
            continue;
        }
        if ($type === 0x0a && ($body[0x22] ?? null) === 'journal') {
            \fwrite($client, $frame(0, $sync, $encoder->encode([0x30 => $journal])));
            continue;
        }
        $journal[] = [$type, $stream];
        if ($scenario === 'drop-in-transaction' && $clients === 1 && $stream !== 0 && $type !== 0x0e) {
            break; // BEGIN answered, the first connection drops at the transaction's first request
        }
        $served++;
        $answer = match ($scenario) {
            // Half a frame, then the end of the stream.
            'truncated' => \substr($frame(0, $sync, $encoder->encode([0x30 => ['a long enough answer']])), 0, 12),
            // 0xc1 (never used) where the header map should be.
            'corrupt-header' => "\xce\x00\x00\x00\x03\xc1\xc1\xc1",
            // The first client gets garbage and is hung up on; later ones are served.
            'garbage-then-good' => $clients === 1 ? "\xce\x00\x00\x00\x03\xc1\xc1\xc1" : $frame(0, $sync, $encoder->encode([0x30 => ['ok']])),
            // Not a MessagePack uint where the length should be.
            'bad-length' => "\xa3abc",
            // The first answer's body is broken; its length is right, so the stream goes on.
            'corrupt-body' => $served === 1 ? $frame(0, $sync, "\x81\x30\xc1") : $frame(0, $sync, $encoder->encode([0x30 => ['fine']])),
            // An answer to nobody (an unknown sync), then the real one.
            'stray-answer' => $frame(0, $sync + 1000, $encoder->encode([0x30 => ['stray']])) . $frame(0, $sync, $encoder->encode([0x30 => ['mine']])),
            // A value of Tarantool 2.10+: a datetime with nanoseconds and an offset.
            'datetime' => $frame(0, $sync, "\x81\x30\x91\xd8\x04" . \pack('P', 1661862896) . \pack('Vvv', 123456789, 180, 0)),
            // Greets and authenticates, then never answers.
            'silent' => '',
            default => $frame(0, $sync, $encoder->encode([0x30 => ['ok']])),
        };
        if ($answer !== '') {
            \fwrite($client, $answer);
        }
        if ($scenario === 'truncated' || ($scenario === 'garbage-then-good' && $clients === 1)) {
            break;
        }
    }
    \fclose($client);
}
