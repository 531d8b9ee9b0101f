<?php

declare(strict_types=1);

namespace Bobbin\Async;

/**
 * A unique or primary key already holds the value written: tell the user (409). Every client
 * whose server has unique keys throws it (docs/CLIENTS.md section 4).
 */
interface UniqueViolation extends \Throwable
{
}
