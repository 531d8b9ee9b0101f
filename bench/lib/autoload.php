<?php

declare(strict_types=1);

/*
 * The autoloader of bench/lib (namespace Bobbin\Bench), for the bench scripts: the harness is
 * not part of the package Composer installs, so its classes are not in vendor/autoload.php.
 */
\spl_autoload_register(static function (string $class): void {
    $prefix = 'Bobbin\\Bench\\';
    if (\str_starts_with($class, $prefix)) {
        $file = __DIR__ . '/' . \str_replace('\\', '/', \substr($class, \strlen($prefix))) . '.php';
        if (\is_file($file)) {
            require $file;
        }
    }
});
