<?php

declare(strict_types=1);

/*
 * The process tests' app (app.php), loaded after BOBBIN_TEST_BOOT_SECONDS (default 0) of sleep:
 * a worker that takes its time to become ready.
 */

\usleep((int) ((float) (\getenv('BOBBIN_TEST_BOOT_SECONDS') ?: '0') * 1e6));

return require __DIR__ . '/app.php';
