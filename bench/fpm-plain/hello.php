<?php

declare(strict_types=1);

/*
 * Hello-world as a PHP team writes it for speed under nginx + PHP-FPM: no autoloader, no PSR-7,
 * no framework — the strongest FPM baseline for server CPU per plaintext request (issue 20).
 * The same answer as examples/hello.php to GET /.
 */

\header('Content-Type: text/plain');
echo 'Hello, World!';
