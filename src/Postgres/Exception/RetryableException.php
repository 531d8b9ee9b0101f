<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Exception;

/** The whole transaction may succeed when run again (serialization failure, deadlock). */
interface RetryableException extends \Throwable
{
}
