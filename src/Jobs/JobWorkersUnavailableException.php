<?php

declare(strict_types=1);

namespace Bobbin\Jobs;

/** The job workers cannot be reached at all (their socket is gone: the pool is stopping or was never started). */
final class JobWorkersUnavailableException extends JobException
{
}
