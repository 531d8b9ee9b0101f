<?php

declare(strict_types=1);

/*
 * php bench/async/calls-per-request.php DIR [FUNCTION…]
 *
 * Calls per request of PHP's C functions, from the two callgrind files that
 * `bench/async/instructions.php --keep=DIR` leaves (callgrind.A, callgrind.B): (calls in B −
 * calls in A) / (B − A). Counts what a request does rather than what it costs: objects made
 * (object_init_ex), allocations (_emalloc…), arrays copied (zend_array_dup), regular expressions
 * run (php_pcre_match_impl), fibers switched (zend_fiber_switch_context), system calls' PHP
 * wrappers. Without FUNCTION, a default list of those.
 */

$dir = $argv[1] ?? '';
if ($dir === '' || !\is_dir($dir)) {
    \fwrite(\STDERR, "Usage: php bench/async/calls-per-request.php DIR [FUNCTION…]\n");
    exit(2);
}
$wanted = \array_slice($argv, 2) ?: [
    'object_init_ex', 'zend_objects_store_del', '_emalloc', '_efree', '_erealloc', 'zend_array_dup', 'zend_array_destroy',
    'php_pcre_match_impl', 'zend_fiber_switch_context', 'zend_check_user_type_slow', 'zend_call_function',
    'zend_closure_from_frame', 'zend_create_closure', 'zend_string_tolower_ex', 'zend_hash_str_find', 'php_stream_select',
];

/** @return array<string, int> calls by callee name */
function callsIn(string $file): array
{
    $names = [];
    $calls = [];
    $callee = null;
    foreach (\file($file, \FILE_IGNORE_NEW_LINES) ?: [] as $line) {
        if (\preg_match('/^cfn=\((\d+)\)(?: (.*))?$/', $line, $m) === 1) {
            if (isset($m[2])) {
                $names[$m[1]] = $m[2];
            }
            $callee = $names[$m[1]] ?? null;
        } elseif ($callee !== null && \preg_match('/^calls=(\d+)/', $line, $m) === 1) {
            $calls[$callee] = ($calls[$callee] ?? 0) + (int) $m[1];
            $callee = null;
        } elseif (\preg_match('/^fn=\((\d+)\) (.*)$/', $line, $m) === 1) {
            $names[$m[1]] = $m[2];
        }
    }

    return $calls;
}

$runs = [];
foreach (\glob($dir . '/callgrind.*') ?: [] as $file) {
    $runs[(int) \substr((string) \strrchr($file, '.'), 1)] = $file;
}
\ksort($runs);
if (\count($runs) !== 2) {
    \fwrite(\STDERR, "$dir should hold two callgrind.N files (instructions.php --keep=$dir)\n");
    exit(1);
}
[$fewer, $more] = \array_keys($runs);
$a = callsIn($runs[$fewer]);
$b = callsIn($runs[$more]);
$result = [];
foreach ($wanted as $name) {
    $result[$name] = \round((($b[$name] ?? 0) - ($a[$name] ?? 0)) / ($more - $fewer), 2);
}
echo \json_encode($result, \JSON_PRETTY_PRINT), "\n";
