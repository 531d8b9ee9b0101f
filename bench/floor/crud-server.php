<?php

declare(strict_types=1);

/*
 * DATABASE_URL=... php bench/floor/crud-server.php PORT
 *
 * The pure-PHP floor of the aircraft CRUD cycle (POST, GET, PUT, DELETE /aircraft[/{id}], the
 * answers bench/wrk/crud.lua checks): one process, stream_select() over its clients, blocking
 * pg_execute() on four statements prepared once, json_decode/json_encode. No validation, no
 * error answers beyond 404, no timeouts, no limits, no objects, one request at a time — what a
 * server cannot do without, as a measure of what PHP, libpq and the kernel cost per cycle. Not a
 * server to use: an instrument (bench/floor/run.php --crud).
 */

$port = (int) ($argv[1] ?? 0);
$db = \pg_connect((string) \getenv('DATABASE_URL'));
$columns = 'id, number, title, serial_number, assembly_date, added_at';
\pg_prepare($db, 'insert', "INSERT INTO aircraft (number, title, serial_number, assembly_date, added_at) VALUES ($1, $2, $3, $4, $5) RETURNING $columns");
\pg_prepare($db, 'select', "SELECT $columns FROM aircraft WHERE id = $1");
\pg_prepare($db, 'update', "UPDATE aircraft SET number = $2, title = $3, serial_number = $4, assembly_date = $5, added_at = $6 WHERE id = $1 RETURNING $columns");
\pg_prepare($db, 'delete', 'DELETE FROM aircraft WHERE id = $1');
$server = \stream_socket_server("tcp://127.0.0.1:$port", $code, $message);
if ($server === false) {
    \fwrite(\STDERR, "listen: $message\n");
    exit(1);
}
\stream_set_blocking($server, false);
$clients = [];
$buffers = [];

/** @param array<string, mixed>|null $row */
function answer(int $status, ?array $row, string $extra = ''): string
{
    static $reasons = [200 => 'OK', 201 => 'Created', 204 => 'No Content', 404 => 'Not Found'];
    if ($row === null) {
        return "HTTP/1.1 $status {$reasons[$status]}\r\n{$extra}Content-Length: 0\r\n\r\n";
    }
    $row['id'] = (int) $row['id'];
    $body = \json_encode($row, \JSON_UNESCAPED_SLASHES | \JSON_UNESCAPED_UNICODE);

    return "HTTP/1.1 $status {$reasons[$status]}\r\n{$extra}Content-Type: application/json\r\nContent-Length: " . \strlen($body) . "\r\n\r\n" . $body;
}

/** @return list<string|null> */
function fields(string $body): array
{
    $data = \json_decode($body, true);

    return [$data['number'] ?? null, $data['title'] ?? null, $data['serial_number'] ?? null, $data['assembly_date'] ?? null, $data['added_at'] ?? null];
}

function handle(\PgSql\Connection $db, string $method, string $path, string $body): string
{
    if ($method === 'POST' && $path === '/aircraft') {
        $row = \pg_fetch_assoc(\pg_execute($db, 'insert', fields($body)));

        return \is_array($row) ? answer(201, $row, "Location: /aircraft/{$row['id']}\r\n") : answer(404, null);
    }
    $id = \substr($path, 10); // after "/aircraft/"
    $row = match ($method) {
        'GET' => \pg_fetch_assoc(\pg_execute($db, 'select', [$id])),
        'PUT' => \pg_fetch_assoc(\pg_execute($db, 'update', [$id, ...fields($body)])),
        'DELETE' => \pg_affected_rows(\pg_execute($db, 'delete', [$id])) > 0 ? null : false,
        default => false,
    };
    if ($row === false) {
        return answer(404, null);
    }

    return $method === 'DELETE' ? answer(204, null) : answer(200, $row);
}

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
        $out = '';
        while (($end = \strpos($buffer, "\r\n\r\n")) !== false) {
            $head = \substr($buffer, 0, $end);
            $length = \preg_match('/\r\ncontent-length:\s*(\d+)/i', $head, $m) === 1 ? (int) $m[1] : 0;
            if (\strlen($buffer) < $end + 4 + $length) {
                break;
            }
            [$method, $path] = \explode(' ', \substr($head, 0, (int) \strpos($head, "\r\n")), 3);
            $out .= handle($db, $method, $path, (string) \substr($buffer, $end + 4, $length));
            $buffer = (string) \substr($buffer, $end + 4 + $length);
        }
        if ($out !== '') {
            @\fwrite($socket, $out);
        }
        $buffers[$id] = $buffer;
    }
}
