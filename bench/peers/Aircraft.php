<?php

declare(strict_types=1);

namespace Bobbin\Bench\Peers;

/*
 * The aircraft contract (shared/contracts/aircraft-api.md) in plain PHP, shared by the peer apps
 * under bench/peers/: routing, validation and JSON, with the database behind AircraftStore. Each
 * peer app feeds it from its own request API and gives it a store built on the client that peer
 * would use (PDO, Swoole's hooked PDO, amphp/postgres). The rules are the same for every peer,
 * so what differs between them is their HTTP server and their database client.
 */

/** One query on a prepared statement: the rows, or AircraftConflict on a unique violation. */
interface AircraftStore
{
    /**
     * @param list<int|string> $params
     * @return list<array<string, mixed>>
     */
    public function rows(string $sql, array $params): array;
}

final class AircraftConflict extends \RuntimeException
{
}

final class Aircraft
{
    private const FIELDS = ['number', 'title', 'serial_number', 'assembly_date', 'added_at'];
    private const COLUMNS = 'id, number, title, serial_number, assembly_date::text AS assembly_date, added_at::text AS added_at';
    private const JSON = ['Content-Type' => 'application/json'];

    public function __construct(private readonly AircraftStore $store)
    {
    }

    /** @return array{int, array<string, string>, string} status, headers, body */
    public function handle(string $method, string $path, string $query, string $body): array
    {
        try {
            return $this->route($method, $path, $query, $body);
        } catch (AircraftConflict) {
            return self::error(409, 'an aircraft with this number already exists');
        } catch (\Throwable $e) {
            if (\getenv('PEER_DEBUG') !== false) {
                \fwrite(\STDERR, $e . "\n");
            }

            return self::error(503, 'database unavailable');
        }
    }

    /** @return array{int, array<string, string>, string} */
    private function route(string $method, string $path, string $query, string $body): array
    {
        if ($path === '/health') {
            return $method === 'GET' ? [200, ['Content-Type' => 'text/plain'], 'ok'] : self::notAllowed('GET');
        }
        if ($path === '/sleep') {
            if ($method !== 'GET') {
                return self::notAllowed('GET');
            }
            $slept = $this->store->rows('SELECT pg_sleep(1)', []);
            $uuid = $this->store->rows('SELECT gen_random_uuid() AS uuid', [])[0]['uuid'] ?? '';

            return [200, ['Content-Type' => 'text/plain'], \sprintf('Hello from Sleep request handler! Affected rows: %d. Generated uuid: %s', \count($slept), \is_string($uuid) ? $uuid : '')];
        }
        if ($path === '/aircraft') {
            return match ($method) {
                'POST' => $this->create($body),
                'GET' => $this->list($query),
                default => self::notAllowed('GET, POST'),
            };
        }
        if (!\str_starts_with($path, '/aircraft/')) {
            return self::error(404, 'not found');
        }
        $id = \substr($path, 10);
        if (!\in_array($method, ['GET', 'PUT', 'DELETE'], true)) {
            return self::notAllowed('GET, PUT, DELETE');
        }
        if (!\ctype_digit($id) || \strlen($id) > 18 || (int) $id < 1) {
            return self::error(404, 'no such aircraft');
        }
        if ($method === 'DELETE') {
            $gone = $this->store->rows('DELETE FROM aircraft WHERE id = ? RETURNING id', [(int) $id]);

            return $gone === [] ? self::error(404, 'no such aircraft') : [204, [], ''];
        }
        if ($method === 'GET') {
            $rows = $this->store->rows('SELECT ' . self::COLUMNS . ' FROM aircraft WHERE id = ?', [(int) $id]);

            return $rows === [] ? self::error(404, 'no such aircraft') : self::json(200, self::record($rows[0]));
        }
        [$fields, $problem] = self::validate($body);
        if ($problem !== null) {
            return $problem;
        }
        $rows = $this->store->rows(
            'UPDATE aircraft SET number = ?, title = ?, serial_number = ?, assembly_date = ?, added_at = ? WHERE id = ? RETURNING ' . self::COLUMNS,
            [...\array_values($fields), (int) $id],
        );

        return $rows === [] ? self::error(404, 'no such aircraft') : self::json(200, self::record($rows[0]));
    }

    /** @return array{int, array<string, string>, string} */
    private function create(string $body): array
    {
        [$fields, $problem] = self::validate($body);
        if ($problem !== null) {
            return $problem;
        }
        $rows = $this->store->rows(
            'INSERT INTO aircraft (number, title, serial_number, assembly_date, added_at) VALUES (?, ?, ?, ?, ?) RETURNING ' . self::COLUMNS,
            \array_values($fields),
        );
        $record = self::record($rows[0]);
        [$status, $headers, $json] = self::json(201, $record);

        return [$status, $headers + ['Location' => '/aircraft/' . $record['id']], $json];
    }

    /** @return array{int, array<string, string>, string} */
    private function list(string $query): array
    {
        \parse_str($query, $q);
        $limit = $q['limit'] ?? '20';
        $after = $q['after_id'] ?? '0';
        $bad = [];
        if (!\is_string($limit) || !\ctype_digit($limit) || (int) $limit < 1 || (int) $limit > 100) {
            $bad['limit'] = 'must be an integer from 1 to 100';
        }
        if (!\is_string($after) || !\ctype_digit($after) || \strlen($after) > 18) {
            $bad['after_id'] = 'must be a non-negative integer';
        }
        if ($bad !== []) {
            return self::json(422, ['error' => 'invalid query', 'fields' => $bad]);
        }
        $rows = $this->store->rows('SELECT ' . self::COLUMNS . ' FROM aircraft WHERE id > ? ORDER BY id LIMIT ?', [(int) $after, (int) $limit]);
        $items = \array_map(self::record(...), $rows);

        return self::json(200, ['items' => $items, 'next_after_id' => \count($items) === (int) $limit ? $items[\count($items) - 1]['id'] : null]);
    }

    /** @return array{array<string, string>, array{int, array<string, string>, string}|null} */
    private static function validate(string $body): array
    {
        $data = \json_decode($body, true);
        if (!\is_array($data) || \array_is_list($data) && $data !== []) {
            return [[], self::error(400, 'the body is not a JSON object')];
        }
        $fields = [];
        $bad = [];
        foreach (self::FIELDS as $name) {
            $value = $data[$name] ?? null;
            if (!\is_string($value) || \trim($value) === '') {
                $bad[$name] = 'must be a non-empty string';
            } elseif (\str_ends_with($name, '_date') || $name === 'added_at') {
                if (!\preg_match('~^(\d{4})-(\d{2})-(\d{2})$~', $value, $m) || !\checkdate((int) $m[2], (int) $m[3], (int) $m[1])) {
                    $bad[$name] = 'must be a real YYYY-MM-DD date';
                }
            }
            $fields[$name] = \is_string($value) ? $value : '';
        }

        return $bad === [] ? [$fields, null] : [[], self::json(422, ['error' => 'invalid aircraft', 'fields' => $bad])];
    }

    /**
     * @param array<string, mixed> $row
     * @return array<string, mixed>
     */
    private static function record(array $row): array
    {
        $row['id'] = (int) $row['id'];

        return $row;
    }

    /**
     * @param array<string, mixed> $data
     * @return array{int, array<string, string>, string}
     */
    private static function json(int $status, array $data): array
    {
        return [$status, self::JSON, \json_encode($data, \JSON_THROW_ON_ERROR | \JSON_UNESCAPED_SLASHES)];
    }

    /** @return array{int, array<string, string>, string} */
    private static function error(int $status, string $message): array
    {
        return self::json($status, ['error' => $message]);
    }

    /** @return array{int, array<string, string>, string} */
    private static function notAllowed(string $allow): array
    {
        [$status, $headers, $body] = self::error(405, 'method not allowed');

        return [$status, $headers + ['Allow' => $allow], $body];
    }
}

/** PDO (pdo_pgsql): one connection, each statement prepared once on the server and reused. */
final class PdoAircraftStore implements AircraftStore
{
    /** @var array<string, \PDOStatement> */
    private array $statements = [];

    public function __construct(private readonly \PDO $pdo)
    {
    }

    public static function connect(string $libpqUrl): self
    {
        return new self(new \PDO('pgsql:' . $libpqUrl, null, null, [
            \PDO::ATTR_ERRMODE => \PDO::ERRMODE_EXCEPTION,
            \PDO::ATTR_EMULATE_PREPARES => false,
            \PDO::ATTR_DEFAULT_FETCH_MODE => \PDO::FETCH_ASSOC,
        ]));
    }

    public function rows(string $sql, array $params): array
    {
        $statement = $this->statements[$sql] ??= $this->pdo->prepare($sql);
        try {
            $statement->execute($params);
        } catch (\PDOException $e) {
            throw $e->getCode() === '23505' ? new AircraftConflict('unique violation', 0, $e) : $e;
        }
        /** @var list<array<string, mixed>> */
        return $statement->fetchAll();
    }
}
