<?php

declare(strict_types=1);

namespace Bobbin\Pool;

use Bobbin\Async\PoolTimeout;

/** No connection became free in time, or too many callers already wait. Clients rethrow it as their own class. */
final class PoolTimeoutException extends \RuntimeException implements PoolTimeout
{
}
