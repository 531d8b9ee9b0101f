<?php

declare(strict_types=1);

namespace Bobbin\Apps\Aircraft\Storage;

use Bobbin\Apps\Aircraft\Domain\Aircraft;
use Bobbin\Apps\Aircraft\Domain\AircraftInput;
use Bobbin\Apps\Aircraft\Domain\AircraftPage;
use Bobbin\Apps\Aircraft\Domain\AircraftRepository;
use Bobbin\Apps\Aircraft\Domain\DuplicateNumberException;
use Bobbin\Async\Cancellation;
use Bobbin\Mysql\Exception\UniqueViolationException;
use Bobbin\Mysql\Executor;
use Bobbin\Mysql\Transaction;

/**
 * The application's SQL for MySQL/MariaDB (apps/aircraft/schema-mysql.sql). Without RETURNING
 * on UPDATE, a write answers with what it stored, built from the validated input and the
 * generated id: one statement per request, as on PostgreSQL.
 */
final class MysqlAircraftRepository implements AircraftRepository
{
    private const COLUMNS = 'id, number, title, serial_number, assembly_date, added_at';

    public function __construct(private readonly Executor $database)
    {
    }

    public function create(AircraftInput $input, ?Cancellation $cancellation = null): Aircraft
    {
        $values = self::values($input);
        try {
            $result = $this->database->query(
                'INSERT INTO aircraft (number, title, serial_number, assembly_date, added_at) VALUES (?, ?, ?, ?, ?)',
                $values,
                $cancellation,
            );
        } catch (UniqueViolationException $e) {
            throw new DuplicateNumberException($input->number, $e);
        }

        // A signed BIGINT id (schema-mysql.sql): never past PHP_INT_MAX, so never the string form.
        return new Aircraft((int) $result->lastInsertId, ...$values);
    }

    public function find(int $id, ?Cancellation $cancellation = null): ?Aircraft
    {
        $row = $this->database->queryOne('SELECT ' . self::COLUMNS . ' FROM aircraft WHERE id = ?', [$id], $cancellation);

        return $row === null ? null : Aircraft::fromRow($row);
    }

    public function findByNumber(string $number, ?Cancellation $cancellation = null): ?Aircraft
    {
        $row = $this->database->queryOne('SELECT ' . self::COLUMNS . ' FROM aircraft WHERE number = ?', [$number], $cancellation);

        return $row === null ? null : Aircraft::fromRow($row);
    }

    public function replace(int $id, AircraftInput $input, ?Cancellation $cancellation = null): ?Aircraft
    {
        $values = self::values($input);
        try {
            $changed = $this->database->execute(
                'UPDATE aircraft SET number = ?, title = ?, serial_number = ?, assembly_date = ?, added_at = ? WHERE id = ?',
                [...$values, $id],
                $cancellation,
            );
        } catch (UniqueViolationException $e) {
            throw new DuplicateNumberException($input->number, $e);
        }
        // MySQL counts changed rows: 0 is also a row replaced by the same values.
        if ($changed === 0) {
            return $this->find($id, $cancellation);
        }

        return new Aircraft($id, ...$values);
    }

    public function delete(int $id, ?Cancellation $cancellation = null): bool
    {
        return $this->database->execute('DELETE FROM aircraft WHERE id = ?', [$id], $cancellation) > 0;
    }

    public function page(int $afterId, int $limit, ?Cancellation $cancellation = null): AircraftPage
    {
        // One row more than asked tells whether another page exists.
        $rows = $this->database->queryAll(
            'SELECT ' . self::COLUMNS . ' FROM aircraft WHERE id > ? ORDER BY id LIMIT ?',
            [$afterId, $limit + 1],
            $cancellation,
        );
        $items = [];
        foreach (\array_slice($rows, 0, $limit) as $row) {
            $items[] = Aircraft::fromRow($row);
        }

        return new AircraftPage($items, \count($rows) > $limit ? $items[$limit - 1]->id : null);
    }

    public function countByAssemblyYear(?Cancellation $cancellation = null): array
    {
        $counts = [];
        foreach ($this->database->queryAll('SELECT YEAR(assembly_date) AS year, COUNT(*) AS aircraft FROM aircraft GROUP BY 1 ORDER BY 1', [], $cancellation) as $row) {
            $counts[(int) $row['year']] = (int) $row['aircraft'];
        }

        return $counts;
    }

    /**
     * Both on one connection (a transaction pins it). MariaDB before 11.7 has no UUID v4
     * function: the database generates it from RANDOM_BYTES() with the version and variant
     * bits set, as gen_random_uuid() does on PostgreSQL.
     */
    public function sleepThenGenerateUuid(?Cancellation $cancellation = null): array
    {
        return $this->database->transaction(static function (Transaction $session) use ($cancellation): array {
            $slept = \count($session->queryAll('SELECT SLEEP(1)', [], $cancellation));
            $uuid = (string) $session->queryValue(
                "SELECT LOWER(CONCAT_WS('-', HEX(RANDOM_BYTES(4)), HEX(RANDOM_BYTES(2)),"
                . " CONCAT('4', SUBSTR(HEX(RANDOM_BYTES(2)), 2)),"
                . ' CONCAT(HEX(8 | (ASCII(RANDOM_BYTES(1)) & 3)), SUBSTR(HEX(RANDOM_BYTES(2)), 2)),'
                . ' HEX(RANDOM_BYTES(6)))) AS uuid',
                [],
                $cancellation,
            );

            return [$slept, $uuid];
        }, null, $cancellation);
    }

    /**
     * The five fields as stored. A day may end in one "\n" that validation lets through
     * (AircraftInput::DAY); PostgreSQL's date input ignores it, MySQL's strict mode would not.
     *
     * @return array{string, string, string, string, string}
     */
    private static function values(AircraftInput $input): array
    {
        return [$input->number, $input->title, $input->serialNumber, \substr($input->assemblyDate, 0, 10), \substr($input->addedAt, 0, 10)];
    }
}
