<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Laravel;

use Bobbin\Frameworks\Resets;
use Illuminate\Config\Repository;
use Illuminate\Foundation\Application;
use Illuminate\Support\Once;
use Illuminate\Support\Str;

/**
 * What a long-lived Laravel application must forget after a request so that the next one
 * starts as under PHP-FPM: the state Octane's default listeners flush, done in place on the
 * one application of the worker (Octane clones it per request instead; one request at a time,
 * the same services are simply put back as they were at boot).
 *
 * Captured once after boot: the configuration's items and the number of terminating
 * callbacks. After each request: scoped instances (Context, …); the auth guards (the user);
 * the session store's attributes and id; the queued cookies; the configuration; the locale;
 * Str's caches and once(); the database connections' query log and "records modified" flag;
 * the array cache store; the log's shared context; terminating callbacks a request added.
 */
final class ApplicationResets
{
    /** @var array<mixed> */
    private readonly array $config;
    private readonly int $terminatingCallbacks;

    public function __construct(private readonly Application $app)
    {
        $this->config = $app->make('config')->all();
        $this->terminatingCallbacks = \count(self::terminatingCallbacksOf($app));
    }

    public function afterRequest(): void
    {
        $app = $this->app;
        Resets::run([
            $app->forgetScopedInstances(...),
            function () use ($app): void {
                if ($app->resolved('auth')) {
                    $app->make('auth')->forgetGuards();
                }
                if ($app->resolved('auth.driver')) {
                    $app->forgetInstance('auth.driver');
                }
            },
            static function () use ($app): void {
                if ($app->resolved('session')) {
                    $store = $app->make('session')->driver();
                    $store->flush();
                    $store->regenerate();
                }
            },
            static function () use ($app): void {
                if ($app->resolved('cookie')) {
                    $app->make('cookie')->flushQueuedCookies();
                }
            },
            function () use ($app): void {
                $config = $app->make('config');
                \assert($config instanceof Repository);
                $items = $this->config;
                (function () use ($items): void {
                    $this->items = $items;
                })->call($config);
            },
            static function () use ($app): void {
                if ($app->resolved('translator') && $app->make('translator')->getLocale() !== $app->getLocale()) {
                    $app->setLocale($app->getLocale());
                }
            },
            static function (): void {
                Str::flushCache();
                if (\class_exists(Once::class)) {
                    Once::flush();
                }
            },
            static function () use ($app): void {
                if ($app->resolved('db')) {
                    foreach ($app->make('db')->getConnections() as $connection) {
                        $connection->forgetRecordModificationState();
                        $connection->flushQueryLog();
                    }
                }
            },
            static function () use ($app): void {
                if ($app->resolved('cache') && $app->make('config')->get('cache.stores.array') !== null) {
                    $app->make('cache')->store('array')->flush();
                }
            },
            static function () use ($app): void {
                if ($app->resolved('log')) {
                    $app->make('log')->flushSharedContext();
                }
            },
            function () use ($app): void {
                $count = $this->terminatingCallbacks;
                (function () use ($count): void {
                    $this->terminatingCallbacks = \array_slice($this->terminatingCallbacks, 0, $count);
                })->call($app);
            },
        ]);
    }

    /** @return array<mixed> */
    private static function terminatingCallbacksOf(Application $app): array
    {
        return (fn (): array => $this->terminatingCallbacks)->call($app);
    }
}
