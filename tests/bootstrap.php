<?php

declare(strict_types=1);

require \dirname(__DIR__) . '/vendor/autoload.php';

// As a plain script does (docs/ASYNC.md): the tests run on Bobbin's loop driver.
Bobbin\Async\Async::installLoopDriver();
