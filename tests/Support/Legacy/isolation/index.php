<?php
/*
 * GET /leave changes every piece of PHP state a request can change; GET /check reports what
 * of it it sees. Under PHP-FPM /check sees none of it, whatever ran before on the same child.
 */

require_once __DIR__ . '/counter.php';

$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);

if ($path === '/leave') {
    include __DIR__ . '/leftover.php';
    define('LEFTOVER_CONSTANT', 1);
    $leftover_global = 'set by /leave';
    legacy_counter();
    LegacyCounter::$calls++;
    session_start();
    $_SESSION['left'] = 'over';
    ini_set('precision', '5');
    set_error_handler(static fn () => true);
    set_exception_handler(static fn () => null);
    $GLOBALS['leftover_file'] = fopen(__FILE__, 'r');
    ob_start();
    header('X-Leftover: 1');
    register_shutdown_function(static function () {
        // Runs after the response under PHP-FPM too; must not run again for the next request.
        $GLOBALS['leftover_shutdown'] = true;
    });
    echo 'left';
    return;
}

if ($path === '/check') {
    $previousErrorHandler = set_error_handler(null);
    $previousExceptionHandler = set_exception_handler(null);
    $openFiles = 0;
    foreach (get_resources('stream') as $stream) {
        $meta = @stream_get_meta_data($stream);
        if (($meta['uri'] ?? '') === __FILE__) {
            $openFiles++;
        }
    }
    header('Content-Type: application/json');
    echo json_encode([
        'function' => function_exists('leftover_function'),
        'class' => class_exists('LeftoverClass', false),
        'constant' => defined('LEFTOVER_CONSTANT'),
        'global' => isset($leftover_global),
        'shutdown_global' => isset($leftover_shutdown),
        'static_variable' => legacy_counter(),
        'static_property' => ++LegacyCounter::$calls,
        'session' => isset($_SESSION),
        'session_status' => session_status() === PHP_SESSION_ACTIVE,
        'precision' => ini_get('precision'),
        'error_handler' => $previousErrorHandler !== null,
        'exception_handler' => $previousExceptionHandler !== null,
        'open_files' => $openFiles,
        'included_leftover' => in_array(__DIR__ . '/leftover.php', get_included_files(), true),
        'headers' => headers_list(),
    ]);
    return;
}

if ($path === '/exit') {
    usleep(100000);
    echo 'exited';
    exit;
    echo 'not reached';
}

if ($path === '/sleep') {
    file_put_contents($_GET['pid_file'], (string) getmypid());
    sleep(30);
    echo 'woke up';
    return;
}

if ($path === '/fatal') {
    echo 'before';
    undefined_function_of_the_test();
}

http_response_code(404);
