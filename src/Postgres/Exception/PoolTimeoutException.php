<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Exception;

/** No pooled connection became free within the acquire timeout (or too many callers were already waiting). */
final class PoolTimeoutException extends PostgresException
{
}
