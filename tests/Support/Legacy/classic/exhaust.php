<?php

declare(strict_types=1);

// Allocates until memory_limit stops it: its process still answers (the reserve it frees).
\ini_set('display_errors', '0');
$blocks = [];
while (true) {
    $blocks[] = \str_repeat('x', 1 << 16);
}
