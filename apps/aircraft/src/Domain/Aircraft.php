<?php

declare(strict_types=1);

namespace Bobbin\Apps\Aircraft\Domain;

/** One stored aircraft, as the API represents it. */
final class Aircraft
{
    public function __construct(
        public readonly int $id,
        public readonly string $number,
        public readonly string $title,
        public readonly string $serialNumber,
        public readonly string $assemblyDate,
        public readonly string $addedAt,
    ) {
    }

    /** Whether this record holds what $input asked for: a write whose outcome was unknown took effect. */
    public function holds(AircraftInput $input): bool
    {
        return $this->number === $input->number && $this->title === $input->title && $this->serialNumber === $input->serialNumber
            && $this->assemblyDate === $input->assemblyDate && $this->addedAt === $input->addedAt;
    }

    /** @param array<string, mixed> $row a row of the aircraft table */
    public static function fromRow(array $row): self
    {
        return new self(
            (int) $row['id'],
            (string) $row['number'],
            (string) $row['title'],
            (string) $row['serial_number'],
            (string) $row['assembly_date'],
            (string) $row['added_at'],
        );
    }

    /** @return array{id: int, number: string, title: string, serial_number: string, assembly_date: string, added_at: string} */
    public function toArray(): array
    {
        return [
            'id' => $this->id,
            'number' => $this->number,
            'title' => $this->title,
            'serial_number' => $this->serialNumber,
            'assembly_date' => $this->assemblyDate,
            'added_at' => $this->addedAt,
        ];
    }
}
