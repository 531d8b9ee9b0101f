<?php

declare(strict_types=1);

/*
 * PHPStan's view of the framework classes src/Frameworks adapts: they are not in Bobbin's own
 * vendor/ but in the example applications' (scripts/install-frameworks installs them).
 */

foreach (['symfony', 'laravel'] as $app) {
    $autoload = \dirname(__DIR__, 3) . "/examples/$app/vendor/autoload.php";
    if (\is_file($autoload)) {
        require_once $autoload;
    }
}
