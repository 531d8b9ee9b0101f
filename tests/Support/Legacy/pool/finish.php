<?php
// Answers, then runs on past its response (as under PHP-FPM) and leaves a mark when done.
echo 'answered';
fastcgi_finish_request();
echo ' and more that nobody reads';
\usleep(800_000);
\file_put_contents((string) $_GET['marker'], 'done');
