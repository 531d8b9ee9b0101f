<?php

declare(strict_types=1);

namespace Bobbin\Pool;

/** The pool was closed before or while the caller waited. Clients rethrow it as their own class. */
final class PoolClosedException extends \RuntimeException
{
}
