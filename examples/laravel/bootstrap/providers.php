<?php

return [
    // The bobbin-pgsql database driver (config/database.php): Laravel's PostgreSQL connection on
    // Bobbin's non-blocking pool; under PHP-FPM it blocks as pdo_pgsql does.
    Bobbin\Frameworks\Laravel\Database\DatabaseServiceProvider::class,
];
