<?php

declare(strict_types=1);

// Which of its neighbours' paths this process found resolved already (none of them is opened here).
$cache = \realpath_cache_get();
echo \json_encode([
    'upload.php' => isset($cache[__DIR__ . '/upload.php']),
    'stream.php' => isset($cache[__DIR__ . '/stream.php']),
]);
