<?php

declare(strict_types=1);

/*
 * The floor for PHP: the workload of php-client.php in blocking mode, written with the fewest
 * PHP calls that do the job and no Bobbin code (no client object, no fibers, no error handling
 * beyond a length check), making the C client's system calls where PHP allows it.
 * Prints "<requests/s>".
 *
 * usage: php php-bare.php unix|tcp|shm SOCKET TCP_PORT SIZE REQUESTS RECONNECT_EVERY [WARMUP]
 *
 * What it shows: how close to the C client any PHP code gets on a channel; php-client.php
 * divided by this is what Bobbin's client costs on top of PHP itself.
 */

if ($argc !== 7 && $argc !== 8) {
    \fwrite(\STDERR, "usage: php php-bare.php unix|tcp|shm SOCKET TCP_PORT SIZE REQUESTS RECONNECT_EVERY [WARMUP]\n");
    exit(2);
}
[, $channel, $socket, $port, $size, $requests, $every] = $argv;
if (!\in_array($channel, ['unix', 'tcp', 'shm'], true)) {
    \fwrite(\STDERR, "unknown channel $channel (unix, tcp or shm)\n");
    exit(2);
}
$warmup = (int) ($argv[7] ?? 0);
$size = (int) $size;
$requests = (int) $requests;
$every = (int) $every;
$payload = $size > 0 ? \random_bytes($size) : '';
$expected = \max(1, \intdiv($size, 8));

/**
 * A unix or TCP connection: [stream].
 *
 * @return array{resource}
 */
function socketOpen(string $channel, string $socket, string $port): array
{
    $stream = $channel === 'tcp'
        ? \stream_socket_client("tcp://127.0.0.1:$port", $errno, $error, 5.0, \STREAM_CLIENT_CONNECT, \stream_context_create(['socket' => ['tcp_nodelay' => true]]))
        : \stream_socket_client("unix://$socket", $errno, $error, 5.0);
    if ($stream === false) {
        throw new \RuntimeException("connect: $error");
    }
    \stream_set_write_buffer($stream, 0);
    // Non-blocking: a blocking PHP socket stream polls before every read; this way a read finds
    // the answer with one recvfrom() when it is there, as the C client's does.
    \stream_set_blocking($stream, false);

    return [$stream];
}

/** @param array{resource} $connection */
function socketRequests(array $connection, int $count, string $payload, int $expected): void
{
    [$stream] = $connection;
    $frame = \pack('Va*', \strlen($payload), $payload);
    for ($i = 0; $i < $count; $i++) {
        \fwrite($stream, $frame);
        $in = (string) \fread($stream, 65536);
        while (\strlen($in) < 4 || \strlen($in) < 4 + \unpack('V', $in)[1]) {
            $read = [$stream];
            $none = null;
            \stream_select($read, $none, $none, 5);
            if (\feof($stream)) {
                throw new \RuntimeException('the daemon closed the connection');
            }
            $in .= \fread($stream, 65536);
        }
        if (\strlen($in) !== 4 + $expected) {
            throw new \RuntimeException('bad response length');
        }
    }
}

/** @param array{resource} $connection */
function socketClose(array $connection): void
{
    \fclose($connection[0]);
}

/**
 * A shared-memory connection (the handshake of docs/IPC.md, then the rings of bipc_shm_header):
 * [control socket, doorbell to the daemon, doorbell to us, segment size, request ring, response
 * ring, positions (uint64_t[]: [8] request tail, [24] response tail, [32] response head),
 * capacities, mapping address].
 *
 * @return array{\Socket, resource, resource, int, FFI\CData, FFI\CData, FFI\CData, array{int, int}, int}
 */
function shmOpen(FFI $ffi, string $socket): array
{
    $control = \socket_create(\AF_UNIX, \SOCK_STREAM, 0);
    if ($control === false || !\socket_connect($control, $socket)) {
        throw new \RuntimeException('connect failed');
    }
    \socket_send($control, \pack('VCV', 0x80000005, 1, 0), 9, 0);
    $message = ['name' => [], 'buffer_size' => 512, 'controllen' => \socket_cmsg_space(\SOL_SOCKET, \SCM_RIGHTS, 2)];
    if (\socket_recvmsg($control, $message, 0) === false) {
        throw new \RuntimeException('handshake failed');
    }
    $reply = $message['iov'][0];
    [$toDaemon, $toClient] = $message['control'][0]['data'];
    $r = \unpack('Vword/Cop/Cstatus/Vrequest/Vresponse/Vsegment/vname', $reply);
    $fd = $ffi->shm_open(\substr($reply, 20, $r['name']), 2, 0);
    $address = $ffi->mmap(null, $r['segment'], 3, 1, $fd, 0);
    $ffi->close($fd);
    \socket_send($control, \pack('VC', 0x80000001, 2), 5, 0);

    return [
        $control, $toDaemon, $toClient, $r['segment'],
        $ffi->cast('char*', $address + 4096),
        $ffi->cast('char*', $address + 4096 + $r['request']),
        $ffi->cast('uint64_t*', $address),
        [$r['request'], $r['response']],
        $address,
    ];
}

/** @param array{\Socket, resource, resource, int, FFI\CData, FFI\CData, FFI\CData, array{int, int}, int} $connection */
function shmRequests(array $connection, int $count, string $payload, int $expected): void
{
    [, $toDaemon, $toClient, , $requestRing, $responseRing, $positions, [$requestCapacity, $responseCapacity]] = $connection;
    $record = (\strlen($payload) + 15) & ~7;
    $bytes = \str_pad(\pack('VVa*', \strlen($payload) + 4, 1, $payload), $record, "\0");
    $tail = $positions[8];
    $head = $positions[32];
    for ($i = 0; $i < $count; $i++) {
        $offset = $tail % $requestCapacity;
        if ($offset + $record > $requestCapacity) {
            FFI::memcpy($requestRing + $offset, "\xFF\xFF\xFF\xFF", 4);
            $tail += $requestCapacity - $offset;
            $offset = 0;
        }
        FFI::memcpy($requestRing + $offset, $bytes, $record);
        $positions[8] = $tail += $record;
        \fwrite($toDaemon, "\x01\0\0\0\0\0\0\0");
        while (true) {
            while ($positions[24] === $head) {
                $read = [$toClient];
                $none = null;
                \stream_select($read, $none, $none, 1);
                \fread($toClient, 8);
            }
            $offset = $head % $responseCapacity;
            $length = \unpack('V', FFI::string($responseRing + $offset, 4))[1];
            if ($length !== 0xFFFFFFFF) {
                break;
            }
            $head += $responseCapacity - $offset;
        }
        $answer = FFI::string($responseRing + $offset + 8, $length - 4);
        $positions[32] = $head += ($length + 11) & ~7;
        if (\strlen($answer) !== $expected) {
            throw new \RuntimeException('bad response length');
        }
    }
}

/** @param array{\Socket, resource, resource, int, FFI\CData, FFI\CData, FFI\CData, array{int, int}, int} $connection */
function shmClose(FFI $ffi, array $connection): void
{
    [$control, $toDaemon, $toClient, $size, , , , , $address] = $connection;
    \fclose($toDaemon);
    \fclose($toClient);
    \socket_close($control);
    $ffi->munmap($address, $size);
}

if ($channel === 'shm') {
    $ffi = FFI::cdef(<<<'C'
        int shm_open(const char *name, int oflag, unsigned int mode);
        intptr_t mmap(void *addr, size_t length, int prot, int flags, int fd, long offset);
        int munmap(intptr_t addr, size_t length);
        int close(int fd);
        C, 'libc.so.6');
    $open = static fn (): array => shmOpen($ffi, $socket);
    $requestsOn = static fn (array $connection, int $count) => shmRequests($connection, $count, $payload, $expected);
    $close = static fn (array $connection) => shmClose($ffi, $connection);
} else {
    $open = static fn (): array => socketOpen($channel, $socket, $port);
    $requestsOn = static fn (array $connection, int $count) => socketRequests($connection, $count, $payload, $expected);
    $close = static fn (array $connection) => socketClose($connection);
}

// As php-client.php: connected before the clock starts, a close before every RECONNECT_EVERY-th
// request, and with reconnects the warm-up ends with a close, so the timed part starts on a new
// connection.
$connection = $open();
$run = static function (int $total) use (&$connection, $open, $requestsOn, $close, $every): void {
    for ($i = 0; $i < $total; $i += $batch) {
        if ($i > 0 && $every > 0 && $i % $every === 0) {
            $close($connection);
            $connection = null;
        }
        $connection ??= $open();
        $batch = $every > 0 ? \min($every - $i % $every, $total - $i) : $total;
        $requestsOn($connection, $batch);
    }
};
$run($warmup);
if ($every > 0 && $connection !== null) {
    $close($connection);
    $connection = null;
}
$start = \hrtime(true);
$run($requests);
\printf("%.0f\n", $requests / ((\hrtime(true) - $start) / 1e9));
