<?php

declare(strict_types=1);

namespace Bobbin\Jobs;

/**
 * A unit of CPU-heavy work sent to a job worker: an object of an application class, its inputs in
 * its constructor. It crosses the process boundary serialized, so it carries plain data (numbers,
 * strings, arrays, value objects) and opens whatever it needs (files, connections) inside run().
 * Its class must be loadable in the job worker (Composer's autoloader, or --job-bootstrap).
 */
interface Task
{
    /** The result must be serializable too; an exception thrown here reaches the caller as TaskFailedException. */
    public function run(): mixed;
}
