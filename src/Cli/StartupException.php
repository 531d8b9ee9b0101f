<?php

declare(strict_types=1);

namespace Bobbin\Cli;

/** The command was well-formed but could not start (the application failed to load); exit code 1. */
final class StartupException extends \RuntimeException
{
}
