<?php

declare(strict_types=1);

/*
 * The benchmark's own task; required by app.php in the HTTP worker and by bootstrap.php (as
 * --job-bootstrap) in every job worker, since bench/ is not in Composer's autoloader.
 */

namespace Bobbin\Bench\Jobs;

use Bobbin\Jobs\Task;

/** Does nothing: what a task costs on its way there and back. */
final class EmptyTask implements Task
{
    public function run(): null
    {
        return null;
    }
}
