<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Laravel\Database;

use Bobbin\Frameworks\Database\Pools;
use Bobbin\Frameworks\Database\Session;
use Illuminate\Database\DatabaseManager;
use Illuminate\Database\PostgresConnection;
use Illuminate\Support\ServiceProvider;

/**
 * The `bobbin-pgsql` database driver for Laravel: Laravel's PostgreSQL connection (grammar,
 * query builder, Eloquent, schema builder) over Bobbin's non-blocking pool instead of
 * pdo_pgsql. Register the provider (bootstrap/providers.php) and configure a connection:
 *
 *     'bobbin' => ['driver' => 'bobbin-pgsql', 'dsn' => env('DATABASE_URL'), 'pool_max' => 16,
 *                  'database' => '', 'prefix' => '']
 *
 * (or host/port/database/username/password instead of dsn). Under PHP-FPM the same driver
 * blocks as pdo_pgsql does.
 */
final class DatabaseServiceProvider extends ServiceProvider
{
    public function register(): void
    {
        $this->app->resolving('db', static function (DatabaseManager $db): void {
            $db->extend('bobbin-pgsql', static function (#[\SensitiveParameter] array $config, string $name): PostgresConnection {
                $pool = Pools::forConnectionString(Pools::connectionString($config), (int) ($config['pool_max'] ?? 16));
                $config['name'] = $name;

                return new PostgresConnection(
                    static fn (): BobbinPdo => new BobbinPdo(new Session($pool)),
                    (string) ($config['database'] ?? ''),
                    (string) ($config['prefix'] ?? ''),
                    $config,
                );
            });
        });
    }
}
