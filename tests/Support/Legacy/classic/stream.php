<?php

declare(strict_types=1);

// A long report sent as it is made: its first part reaches the client before the script ends.
header('X-Streamed: yes');
echo "first part\n";
@\ob_flush();
\flush();
\usleep((int) ($_GET['sleep_ms'] ?? 1500) * 1000);
echo "second part\n";
