<?php

return [
    'default' => env('DB_CONNECTION', 'bobbin'),

    'connections' => [
        'bobbin' => [
            'driver' => 'bobbin-pgsql',
            'dsn' => env('DATABASE_URL', 'postgresql:///postgres'),
            'pool_max' => 16,
            'database' => '',
            'prefix' => '',
        ],
    ],
];
