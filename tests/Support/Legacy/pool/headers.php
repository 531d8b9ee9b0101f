<?php
\header('Content-Type: application/json');
echo \json_encode([
    'sapi' => PHP_SAPI,
    'headers' => \getallheaders(),
    'same' => \getallheaders() === \apache_request_headers(),
    'opcache' => \function_exists('opcache_get_status') && (\opcache_get_status(false)['opcache_enabled'] ?? false),
    'input' => \file_get_contents('php://input'),
]);
