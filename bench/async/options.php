<?php

declare(strict_types=1);

/*
 * The command line of the bench/async scripts: ROOT (a checkout with vendor/ and bin/), then
 * --name=value or --flag options. Returns [ROOT, options]; prints $usage and exits on anything
 * else.
 *
 * @param list<string> $argv
 * @return array{string, array<string, string|true>}
 */
function benchArguments(array $argv, string $usage): array
{
    $root = $argv[1] ?? '';
    if ($root === '' || !\is_file($root . '/vendor/autoload.php')) {
        \fwrite(\STDERR, "Usage: $usage\n");
        exit(2);
    }
    $options = [];
    foreach (\array_slice($argv, 2) as $argument) {
        if (\preg_match('/^--([a-z-]+)(?:=(.*))?$/', $argument, $m) !== 1) {
            \fwrite(\STDERR, "Unknown argument $argument\nUsage: $usage\n");
            exit(2);
        }
        $options[$m[1]] = $m[2] ?? true;
    }

    return [$root, $options];
}
