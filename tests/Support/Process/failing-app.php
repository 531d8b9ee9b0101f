<?php

declare(strict_types=1);

// An APP_FILE that cannot start (as when its database is unreachable).
throw new \RuntimeException('the test application cannot reach its database');
