<?php
$status = \function_exists('opcache_get_status') ? \opcache_get_status(false) : false;
\header('Content-Type: application/json');
echo \json_encode([
    'precision' => \ini_get('precision'),
    'memory_limit' => \ini_get('memory_limit'),
    'jit' => \is_array($status) && ($status['jit']['on'] ?? false),
]);
