<?php

declare(strict_types=1);

namespace Bobbin\Apps\Aircraft\Domain;

/** One page of the aircraft list, with the cursor for the next page (null on the last). */
final class AircraftPage
{
    /** @param list<Aircraft> $items */
    public function __construct(
        public readonly array $items,
        public readonly ?int $nextAfterId,
    ) {
    }
}
