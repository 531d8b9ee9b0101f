<?php

declare(strict_types=1);

namespace Bobbin\Apps\Aircraft\Storage;

use Bobbin\Apps\Aircraft\Domain\Aircraft;
use Bobbin\Apps\Aircraft\Domain\AircraftInput;
use Bobbin\Apps\Aircraft\Domain\AircraftPage;
use Bobbin\Apps\Aircraft\Domain\AircraftRepository;
use Bobbin\Apps\Aircraft\Domain\DuplicateNumberException;
use Bobbin\Async\Cancellation;
use Bobbin\Postgres\Exception\UniqueViolationException;
use Bobbin\Postgres\Executor;
use Bobbin\Postgres\Transaction;

/**
 * The application's SQL for PostgreSQL. Statements are constant strings with parameters, so the client
 * prepares each once per connection. Knows nothing of fibers: the same calls work on the
 * Bobbin server and under PHP-FPM. Every method takes the request's cancellation (null under
 * PHP-FPM): a request that times out or whose client leaves has its statement cancelled on the
 * server.
 */
final class PostgresAircraftRepository implements AircraftRepository
{
    private const COLUMNS = 'id, number, title, serial_number, assembly_date, added_at';

    public function __construct(private readonly Executor $database)
    {
    }

    public function create(AircraftInput $input, ?Cancellation $cancellation = null): Aircraft
    {
        try {
            $row = $this->database->queryOne(
                'INSERT INTO aircraft (number, title, serial_number, assembly_date, added_at)'
                . ' VALUES ($1, $2, $3, $4, $5) RETURNING ' . self::COLUMNS,
                [$input->number, $input->title, $input->serialNumber, $input->assemblyDate, $input->addedAt],
                $cancellation,
            );
        } catch (UniqueViolationException $e) {
            throw new DuplicateNumberException($input->number, $e);
        }
        \assert($row !== null);

        return Aircraft::fromRow($row);
    }

    public function find(int $id, ?Cancellation $cancellation = null): ?Aircraft
    {
        $row = $this->database->queryOne('SELECT ' . self::COLUMNS . ' FROM aircraft WHERE id = $1', [$id], $cancellation);

        return $row === null ? null : Aircraft::fromRow($row);
    }

    public function findByNumber(string $number, ?Cancellation $cancellation = null): ?Aircraft
    {
        $row = $this->database->queryOne('SELECT ' . self::COLUMNS . ' FROM aircraft WHERE number = $1', [$number], $cancellation);

        return $row === null ? null : Aircraft::fromRow($row);
    }

    public function replace(int $id, AircraftInput $input, ?Cancellation $cancellation = null): ?Aircraft
    {
        try {
            $row = $this->database->queryOne(
                'UPDATE aircraft SET number = $2, title = $3, serial_number = $4, assembly_date = $5, added_at = $6'
                . ' WHERE id = $1 RETURNING ' . self::COLUMNS,
                [$id, $input->number, $input->title, $input->serialNumber, $input->assemblyDate, $input->addedAt],
                $cancellation,
            );
        } catch (UniqueViolationException $e) {
            throw new DuplicateNumberException($input->number, $e);
        }

        return $row === null ? null : Aircraft::fromRow($row);
    }

    public function delete(int $id, ?Cancellation $cancellation = null): bool
    {
        return $this->database->execute('DELETE FROM aircraft WHERE id = $1', [$id], $cancellation) > 0;
    }

    public function page(int $afterId, int $limit, ?Cancellation $cancellation = null): AircraftPage
    {
        // One row more than asked tells whether another page exists.
        $rows = $this->database->queryAll(
            'SELECT ' . self::COLUMNS . ' FROM aircraft WHERE id > $1 ORDER BY id LIMIT $2',
            [$afterId, $limit + 1],
            $cancellation,
        );
        $items = [];
        foreach (\array_slice($rows, 0, $limit) as $row) {
            $items[] = Aircraft::fromRow($row);
        }
        // A further row exists only beyond a full page, so $items is not empty then.
        return new AircraftPage($items, \count($rows) > $limit ? $items[$limit - 1]->id : null);
    }

    public function countByAssemblyYear(?Cancellation $cancellation = null): array
    {
        $counts = [];
        foreach ($this->database->queryAll('SELECT EXTRACT(YEAR FROM assembly_date)::int AS year, count(*)::int AS aircraft FROM aircraft GROUP BY 1 ORDER BY 1', [], $cancellation) as $row) {
            $counts[(int) $row['year']] = (int) $row['aircraft'];
        }

        return $counts;
    }

    /**
     * Both on one connection, which only a transaction pins through Executor: taken from a pool
     * once per statement, the second statement queued again behind every request that arrived
     * during the first, and under pool pressure timed out (503) after the second of work.
     */
    public function sleepThenGenerateUuid(?Cancellation $cancellation = null): array
    {
        return $this->database->transaction(static function (Transaction $session) use ($cancellation): array {
            $slept = \count($session->queryAll('SELECT pg_sleep(1)', [], $cancellation));
            $uuid = (string) $session->queryValue('SELECT gen_random_uuid() AS uuid', [], $cancellation);

            return [$slept, $uuid];
        }, null, $cancellation);
    }
}
