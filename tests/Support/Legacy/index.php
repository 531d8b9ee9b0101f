<?php
/*
 * A small plain-PHP application written for PHP-FPM (superglobals, echo, header(), a session,
 * exit after a redirect), served by `bin/bobbin serve --legacy` in the tests and compared with
 * nginx + PHP-FPM serving the same file. Its functions live in a file loaded with require_once,
 * as the legacy mode asks (docs/LEGACY.md).
 */

require_once __DIR__ . '/functions.php';

session_start();
$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
$greeting = 'Hello';

if ($path === '/login' && $_SERVER['REQUEST_METHOD'] === 'POST') {
    $name = trim($_POST['name'] ?? '');
    if ($name === '') {
        http_response_code(422);
        echo 'A name is required';
        exit;
    }
    $_SESSION['user'] = $name;
    setcookie('last_login', $name, ['path' => '/', 'httponly' => true]);
    header('Location: /');
    exit;
}
if ($path === '/logout') {
    $_SESSION = [];
    session_destroy();
    header('Location: /', true, 303);
    exit;
}
if ($path === '/echo') {
    header('Content-Type: application/json');
    echo json_encode([
        'get' => $_GET, 'post' => $_POST, 'cookie' => $_COOKIE, 'request' => $_REQUEST,
        'input' => file_get_contents('php://input'), 'method' => $_SERVER['REQUEST_METHOD'],
        'files' => array_map(static fn ($f) => [$f['name'], $f['size'], $f['error']], $_FILES),
    ]);
    return;
}
if ($path === '/fail') {
    throw new RuntimeException('the legacy script failed');
}
if ($path === '/fatal') {
    echo 'Half a page';
    undefined_function_of_the_legacy_app();
}
if ($path === '/fatal-page') {
    // As WordPress's fatal error handler does: its own page, from a shutdown function.
    register_shutdown_function(static function () {
        $error = error_get_last();
        if ($error !== null && $error['type'] === E_USER_ERROR) {
            while (ob_get_level() > 0 && ob_get_length() !== false && ob_end_clean()) {
            }
            echo '<h1>There has been a critical error on this website.</h1>';
        }
    });
    trigger_error('the application gave up', E_USER_ERROR);
}
if ($path === '/fatal-shown') {
    ini_set('display_errors', '1');
    echo 'Before the error. ';
    trigger_error('the application gave up', E_USER_ERROR);
}
$user = $_SESSION['user'] ?? null;
$_SESSION['visits'] = ($_SESSION['visits'] ?? 0) + 1;
?>
<!doctype html>
<title>Legacy</title>
<p><?= htmlspecialchars($user !== null ? greet($user) : 'Not logged in') ?> (visit <?= $_SESSION['visits'] ?>)</p>
<form method="post" action="/login"><input name="name"><button>Log in</button></form>
