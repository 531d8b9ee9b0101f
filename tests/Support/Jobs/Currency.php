<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Jobs;

/** Enums travel without a declaration: they cannot run code when unserialized. */
enum Currency: string
{
    case Eur = 'EUR';
    case Usd = 'USD';
}
