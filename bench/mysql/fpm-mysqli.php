<?php

declare(strict_types=1);

/*
 * The aircraft API (shared/contracts/aircraft-api.md) as a plain-PHP front controller on mysqli
 * with a persistent connection per PHP-FPM child ("p:" host): the fastest honest FPM setup for
 * MySQL/MariaDB, the baseline of bench/mysql/http.php. No framework, no autoloader, prepared
 * statements, the contract's validation of the five fields. Only what the benchmarks call is
 * here: POST /aircraft, GET|PUT|DELETE /aircraft/{id}, GET /health, GET /sleep.
 *
 *   apps/aircraft/fpm/ctl start --front-controller=bench/mysql/fpm-mysqli.php   (DATABASE_URL=mysql://…)
 */

function respond(int $status, ?array $body, array $headers = []): void
{
    \http_response_code($status);
    foreach ($headers as $name => $value) {
        \header("$name: $value");
    }
    if ($body !== null) {
        \header('Content-Type: application/json');
        echo \json_encode($body, \JSON_UNESCAPED_SLASHES | \JSON_UNESCAPED_UNICODE);
    }
}

/** @return array<string, string>|null the validated fields, or null after a 4xx */
function input(): ?array
{
    try {
        $data = \json_decode((string) \file_get_contents('php://input'), true, 16, \JSON_THROW_ON_ERROR);
    } catch (\JsonException) {
        respond(400, ['error' => 'The request body is not valid JSON']);

        return null;
    }
    if (!\is_array($data) || \array_is_list($data) && $data !== []) {
        respond(400, ['error' => 'The request body must be a JSON object']);

        return null;
    }
    $errors = [];
    foreach (['number' => 32, 'title' => 200, 'serial_number' => 64] as $field => $max) {
        $value = $data[$field] ?? null;
        if (!\is_string($value) || \trim($value) === '' || \mb_strlen($value) > $max || \preg_match('/[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]/u', $value) !== 0) {
            $errors[$field] = 'is invalid';
        }
    }
    foreach (['assembly_date', 'added_at'] as $field) {
        $value = $data[$field] ?? null;
        if (!\is_string($value) || \preg_match('/^(\d{4})-(\d{2})-(\d{2})$/', $value, $m) !== 1 || !\checkdate((int) $m[2], (int) $m[3], (int) $m[1])) {
            $errors[$field] = 'must be a date YYYY-MM-DD';
        }
    }
    if ($errors !== []) {
        respond(422, ['error' => 'Invalid fields', 'fields' => $errors]);

        return null;
    }

    return [$data['number'], $data['title'], $data['serial_number'], \substr($data['assembly_date'], 0, 10), \substr($data['added_at'], 0, 10)];
}

function record(int $id, array $values): array
{
    return ['id' => $id, 'number' => $values[0], 'title' => $values[1], 'serial_number' => $values[2], 'assembly_date' => $values[3], 'added_at' => $values[4]];
}

$path = (string) \parse_url($_SERVER['REQUEST_URI'] ?? '/', \PHP_URL_PATH);
$method = $_SERVER['REQUEST_METHOD'] ?? 'GET';
if ($path === '/health') {
    \header('Content-Type: text/plain');
    echo 'OK';

    return;
}
$url = \parse_url((string) \getenv('DATABASE_URL'));
\parse_str($url['query'] ?? '', $options);
\mysqli_report(\MYSQLI_REPORT_ERROR | \MYSQLI_REPORT_STRICT);
try {
    $db = new \mysqli('p:' . ($url['host'] ?? 'localhost'), $url['user'] ?? '', $url['pass'] ?? '', \ltrim($url['path'] ?? '', '/'), $url['port'] ?? 3306, $options['unix_socket'] ?? null);
    if ($path === '/sleep') {
        $db->query('SELECT SLEEP(1)');
        $uuid = $db->query('SELECT UUID()')->fetch_row()[0];
        \header('Content-Type: text/plain');
        echo "Hello from Sleep request handler! Affected rows: 1. Generated uuid: $uuid";

        return;
    }
    if ($path === '/aircraft' && $method === 'POST') {
        if (($values = input()) === null) {
            return;
        }
        $statement = $db->prepare('INSERT INTO aircraft (number, title, serial_number, assembly_date, added_at) VALUES (?, ?, ?, ?, ?)');
        $statement->bind_param('sssss', ...$values);
        try {
            $statement->execute();
        } catch (\mysqli_sql_exception $e) {
            if ($e->getCode() === 1062) {
                respond(409, ['error' => 'An aircraft with this number exists']);

                return;
            }
            throw $e;
        }
        respond(201, record($statement->insert_id, $values), ['Location' => '/aircraft/' . $statement->insert_id]);

        return;
    }
    if (\preg_match('~^/aircraft/(\d{1,18})$~', $path, $m) !== 1) {
        respond(404, ['error' => 'Not found']);

        return;
    }
    $id = (int) $m[1];
    switch ($method) {
        case 'GET':
            $statement = $db->prepare('SELECT id, number, title, serial_number, assembly_date, added_at FROM aircraft WHERE id = ?');
            $statement->bind_param('i', $id);
            $statement->execute();
            $row = $statement->get_result()->fetch_assoc();
            $row === null ? respond(404, ['error' => 'Not found']) : respond(200, ['id' => (int) $row['id']] + $row);

            return;
        case 'PUT':
            if (($values = input()) === null) {
                return;
            }
            $statement = $db->prepare('UPDATE aircraft SET number = ?, title = ?, serial_number = ?, assembly_date = ?, added_at = ? WHERE id = ?');
            $statement->bind_param('sssssi', ...[...$values, $id]);
            $statement->execute();
            if ($statement->affected_rows === 0) {
                $exists = $db->prepare('SELECT 1 FROM aircraft WHERE id = ?');
                $exists->bind_param('i', $id);
                $exists->execute();
                if ($exists->get_result()->fetch_row() === null) {
                    respond(404, ['error' => 'Not found']);

                    return;
                }
            }
            respond(200, record($id, $values));

            return;
        case 'DELETE':
            $statement = $db->prepare('DELETE FROM aircraft WHERE id = ?');
            $statement->bind_param('i', $id);
            $statement->execute();
            $statement->affected_rows > 0 ? respond(204, null) : respond(404, ['error' => 'Not found']);

            return;
    }
    respond(405, ['error' => 'Method not allowed'], ['Allow' => 'GET, PUT, DELETE']);
} catch (\mysqli_sql_exception $e) {
    respond(503, ['error' => 'The database is unavailable, try again later']);
}
