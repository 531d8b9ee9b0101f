<?php

declare(strict_types=1);

/*
 * A --legacy script for the jobs tests: submits an EchoTask through Jobs::shared() and prints what
 * came back as JSON, with this process's pid as "server".
 */

use Bobbin\Jobs\Jobs;
use Bobbin\Tests\Support\Jobs\EchoTask;

header('Content-Type: application/json');
echo \json_encode(['server' => \getmypid()] + Jobs::shared()->submit(new EchoTask((string) ($_GET['v'] ?? '')))->await(), \JSON_THROW_ON_ERROR);
