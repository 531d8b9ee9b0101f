<?php

declare(strict_types=1);

namespace Bobbin\Jobs;

/** Something went wrong with a job: the base of every Bobbin\Jobs exception. */
class JobException extends \RuntimeException
{
}
