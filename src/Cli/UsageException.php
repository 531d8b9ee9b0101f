<?php

declare(strict_types=1);

namespace Bobbin\Cli;

/** The command line asks for something impossible; reported in one line, exit code 2. */
final class UsageException extends \RuntimeException
{
}
