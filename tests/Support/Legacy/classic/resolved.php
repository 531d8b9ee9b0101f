<?php

declare(strict_types=1);

// Which of its neighbours' paths this process found resolved already, and not expired (none of
// them is opened here).
$cache = \realpath_cache_get();
$fresh = static fn (string $path): bool => isset($cache[$path]) && $cache[$path]['expires'] >= \time();
echo \json_encode([
    'upload.php' => $fresh(__DIR__ . '/upload.php'),
    'stream.php' => $fresh(__DIR__ . '/stream.php'),
    'ttl' => (int) \ini_get('realpath_cache_ttl'),
]);
