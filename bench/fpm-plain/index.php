<?php

declare(strict_types=1);

/*
 * The aircraft CRUD API (contracts/aircraft-api.md: /health, POST /aircraft, GET, PUT and DELETE
 * /aircraft/{id}) as a PHP team writes it by hand for speed under nginx + PHP-FPM: one file,
 * routing on REQUEST_URI, json_decode, pg_pconnect + pg_query_params, no framework and no
 * Bobbin class. bench/run's strongest FPM baseline (issue 20): the aircraft app's own FPM twin
 * runs the same domain code as Bobbin through PSR-7 objects and a container, which costs PHP-FPM
 * far more per request than this.
 *
 * The same answers as the app on the cycle's paths: 201 with the row and a Location, 200 with
 * the row, 204, 404, 409 for a duplicate number, 422 with the failing fields, 400 for a body
 * that is no JSON object. DATABASE_URL (libpq key/value or postgresql:// URL) as for the app.
 */

const COLUMNS = 'id, number, title, serial_number, assembly_date, added_at';
const MAX_LENGTHS = ['number' => 32, 'title' => 200, 'serial_number' => 64];

function respond(int $status, ?array $body, array $headers = []): void
{
    http_response_code($status);
    foreach ($headers as $name => $value) {
        header("$name: $value");
    }
    if ($body !== null) {
        header('Content-Type: application/json');
        echo json_encode($body, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
    }
}

function row(array $row): array
{
    $row['id'] = (int) $row['id'];

    return $row;
}

/** @return array{0: list<string>|null, 1: array<string, string>} the statement's parameters, or null and the errors */
function input(): array
{
    $data = json_decode((string) file_get_contents('php://input'), true);
    if (!is_array($data)) {
        return [null, ['body' => 'must be a JSON object']];
    }
    $errors = [];
    $values = [];
    foreach (['number', 'title', 'serial_number'] as $field) {
        $value = $data[$field] ?? null;
        if (!is_string($value) || trim($value) === '') {
            $errors[$field] = $value === null ? 'is required' : 'must be a non-empty string';
        } elseif (mb_strlen($value) > MAX_LENGTHS[$field] || preg_match('/[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]/', $value) === 1) {
            $errors[$field] = 'is too long or holds control characters';
        }
        $values[] = $value;
    }
    foreach (['assembly_date', 'added_at'] as $field) {
        $value = $data[$field] ?? null;
        if (!is_string($value) || preg_match('/^(\d{4})-(\d{2})-(\d{2})$/', $value, $m) !== 1 || !checkdate((int) $m[2], (int) $m[3], (int) $m[1])) {
            $errors[$field] = 'must be a date (YYYY-MM-DD)';
        }
        $values[] = $value;
    }

    return $errors === [] ? [$values, []] : [null, $errors];
}

function db(): PgSql\Connection
{
    static $db = null;

    return $db ??= pg_pconnect((string) getenv('DATABASE_URL'));
}

/** @param list<mixed> $params */
function query(string $sql, array $params): PgSql\Result|false
{
    return @pg_query_params(db(), $sql, $params);
}

/** The last statement failed on the unique registration number. */
function duplicate(): bool
{
    return str_contains(pg_last_error(db()), 'duplicate key');
}

$method = $_SERVER['REQUEST_METHOD'];
$path = strtok($_SERVER['REQUEST_URI'], '?');

if ($path === '/health') {
    respond(200, ['status' => 'ok']);
} elseif ($path === '/aircraft' && $method === 'POST') {
    [$values, $errors] = input();
    if ($values === null) {
        respond(isset($errors['body']) ? 400 : 422, ['error' => 'Invalid aircraft', 'fields' => $errors]);
    } else {
        $result = query('INSERT INTO aircraft (number, title, serial_number, assembly_date, added_at) VALUES ($1, $2, $3, $4, $5) RETURNING ' . COLUMNS, $values);
        $created = $result === false ? false : pg_fetch_assoc($result);
        if (is_array($created)) {
            respond(201, row($created), ['Location' => '/aircraft/' . $created['id']]);
        } else {
            respond(duplicate() ? 409 : 500, ['error' => 'Could not create the aircraft']);
        }
    }
} elseif (preg_match('~^/aircraft/([1-9][0-9]{0,17})$~', $path, $m) === 1) {
    $id = $m[1];
    if ($method === 'GET' || $method === 'HEAD') {
        $found = ($result = query('SELECT ' . COLUMNS . ' FROM aircraft WHERE id = $1', [$id])) === false ? false : pg_fetch_assoc($result);
        is_array($found) ? respond(200, row($found)) : respond(404, ['error' => 'No such aircraft']);
    } elseif ($method === 'PUT') {
        [$values, $errors] = input();
        if ($values === null) {
            respond(isset($errors['body']) ? 400 : 422, ['error' => 'Invalid aircraft', 'fields' => $errors]);
        } else {
            $result = query('UPDATE aircraft SET number = $2, title = $3, serial_number = $4, assembly_date = $5, added_at = $6 WHERE id = $1 RETURNING ' . COLUMNS, [$id, ...$values]);
            $updated = $result === false ? false : pg_fetch_assoc($result);
            if (is_array($updated)) {
                respond(200, row($updated));
            } else {
                respond(duplicate() ? 409 : 404, ['error' => duplicate() ? 'Duplicate number' : 'No such aircraft']);
            }
        }
    } elseif ($method === 'DELETE') {
        $result = query('DELETE FROM aircraft WHERE id = $1', [$id]);
        $result !== false && pg_affected_rows($result) > 0 ? respond(204, null) : respond(404, ['error' => 'No such aircraft']);
    } else {
        respond(405, ['error' => 'Method not allowed'], ['Allow' => 'GET, HEAD, PUT, DELETE']);
    }
} else {
    respond(404, ['error' => 'Not found']);
}
