<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Aircraft;

use Bobbin\Apps\Aircraft\Domain\Aircraft;
use Bobbin\Apps\Aircraft\Domain\AircraftInput;
use Bobbin\Apps\Aircraft\Domain\AircraftPage;
use Bobbin\Apps\Aircraft\Domain\AircraftRepository;
use Bobbin\Async\Cancellation;
use Bobbin\Postgres\Exception\ConnectionLostException;

/**
 * An aircraft table in memory whose writes end with their answer lost: applied first (a commit
 * whose answer a broken connection lost) or not (a statement that never ran).
 */
final class LosingAnswersStorage implements AircraftRepository
{
    /** @var array<int, Aircraft> */
    public array $rows = [];

    public function __construct(private readonly bool $applies)
    {
    }

    public function create(AircraftInput $input, ?Cancellation $cancellation = null): Aircraft
    {
        if ($this->applies) {
            $id = \count($this->rows) + 1;
            $this->rows[$id] = new Aircraft($id, $input->number, $input->title, $input->serialNumber, $input->assemblyDate, $input->addedAt);
        }
        throw new ConnectionLostException('The connection was lost');
    }

    public function find(int $id, ?Cancellation $cancellation = null): ?Aircraft
    {
        return $this->rows[$id] ?? null;
    }

    public function findByNumber(string $number, ?Cancellation $cancellation = null): ?Aircraft
    {
        foreach ($this->rows as $row) {
            if ($row->number === $number) {
                return $row;
            }
        }

        return null;
    }

    public function replace(int $id, AircraftInput $input, ?Cancellation $cancellation = null): ?Aircraft
    {
        if ($this->applies) {
            $this->rows[$id] = new Aircraft($id, $input->number, $input->title, $input->serialNumber, $input->assemblyDate, $input->addedAt);
        }
        throw new ConnectionLostException('The connection was lost');
    }

    public function delete(int $id, ?Cancellation $cancellation = null): bool
    {
        if ($this->applies) {
            unset($this->rows[$id]);
        }
        throw new ConnectionLostException('The connection was lost');
    }

    public function page(int $afterId, int $limit, ?Cancellation $cancellation = null): AircraftPage
    {
        throw new \LogicException('not used');
    }

    public function countByAssemblyYear(?Cancellation $cancellation = null): array
    {
        return [];
    }

    public function sleepThenGenerateUuid(?Cancellation $cancellation = null): array
    {
        return [0, ''];
    }
}
