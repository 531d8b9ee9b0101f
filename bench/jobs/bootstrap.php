<?php

declare(strict_types=1);

// --job-bootstrap of the jobs benchmark: the task class that is not in Composer's autoloader.
require_once __DIR__ . '/tasks.php';
