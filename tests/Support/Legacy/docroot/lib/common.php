<?php

// No require_once guard, as many classic applications: a second inclusion in one process
// would stop with "Cannot redeclare report()".
function report(string $who): void
{
    $server = array_intersect_key($_SERVER, array_flip(['SCRIPT_FILENAME', 'SCRIPT_NAME', 'PHP_SELF', 'DOCUMENT_ROOT', 'DOCUMENT_URI', 'REQUEST_URI', 'QUERY_STRING', 'PATH_INFO']));
    ksort($server);
    header('Content-Type: application/json');
    echo json_encode([
        'who' => $who,
        'cwd' => getcwd(),
        // The application's own files (Bobbin's worker has its own classes loaded beside them).
        'included' => array_values(array_map(
            static fn (string $f): string => substr($f, strlen($_SERVER['DOCUMENT_ROOT'])),
            array_filter(get_included_files(), static fn (string $f): bool => str_starts_with($f, $_SERVER['DOCUMENT_ROOT'] . '/')),
        )),
        'server' => $server,
        'get' => $_GET,
    ], JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES), "\n";
}
