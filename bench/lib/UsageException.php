<?php

declare(strict_types=1);

namespace Bobbin\Bench;

/** A bad command line: bench/run prints the message and exits 2. */
final class UsageException extends \RuntimeException
{
}
