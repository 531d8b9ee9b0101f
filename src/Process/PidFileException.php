<?php

declare(strict_types=1);

namespace Bobbin\Process;

/** The pid file names a running process, or cannot be written: the server does not start. */
final class PidFileException extends \RuntimeException
{
}
