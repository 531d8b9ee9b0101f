<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Laravel;

use Bobbin\Async\Cancellation;
use Bobbin\Async\FiberLocalState;
use Bobbin\Frameworks\RequestScope;
use Closure;
use Illuminate\Contracts\Http\Kernel as HttpKernel;
use Illuminate\Foundation\Application;
use Illuminate\Routing\Route;
use Illuminate\Routing\Router;
use Illuminate\Support\Facades\Facade;

/**
 * Laravel's request-scoped state kept per fiber (the per-fiber context mode): when a request's
 * fiber waits, its current request, route, URL generator state, authentication guards, session
 * store, queued cookies, configuration, locale, database connections, scoped instances and
 * cancellation are taken out of the one application and the application is left as after boot;
 * when the fiber continues they are put back. So several requests of one Laravel application run
 * concurrently in a worker, each seeing only its own (the leak suite's concurrent Laravel case).
 *
 * A slot is a getter, a setter and the value a fresh fiber starts with; save() and restore()
 * are a few property reads and writes per slot.
 */
final class FiberContext implements FiberLocalState
{
    /** @var list<array{Closure(): mixed, Closure(mixed): void, mixed}> */
    private array $slots = [];

    public function __construct(Application $app)
    {
        $instances = new \ReflectionProperty($app, 'instances');
        $names = ['request', 'auth.driver', 'session.store'];
        foreach ((array) (new \ReflectionProperty($app, 'scopedInstances'))->getValue($app) as $scoped) {
            $names[] = (string) $scoped;
        }
        foreach ($names as $name) {
            $this->slots[] = self::arrayEntry(
                static fn (): mixed => $instances->getValue($app),
                static function (array $all) use ($instances, $app): void {
                    $instances->setValue($app, $all);
                },
                $name,
            );
        }
        $resolved = new \ReflectionProperty(Facade::class, 'resolvedInstance');
        $this->slots[] = self::arrayEntry(
            static fn (): mixed => $resolved->getValue(),
            static function (array $all) use ($resolved): void {
                $resolved->setValue(null, $all);
            },
            'request',
        );
        $this->slots[] = self::currentRoute($app->make('router'));
        $this->slots[] = self::properties($app->make('url'), ['request', 'cachedRoot', 'cachedScheme']);
        $this->slots[] = self::properties($app->make('auth'), ['guards'], [[]]);
        $this->slots[] = self::properties($app->make('session'), ['drivers'], [[]]);
        $this->slots[] = self::properties($app->make('cookie'), ['queued'], [[]]);
        $this->slots[] = self::properties($app->make('config'), ['items']);
        $this->slots[] = self::properties($app->make('db'), ['connections'], [[]]);
        $this->slots[] = self::properties($app->make(HttpKernel::class), ['requestStartedAt']);
        $translator = $app->make('translator');
        $this->slots[] = [
            static fn (): mixed => $translator->getLocale(),
            static function (mixed $locale) use ($translator): void {
                $translator->setLocale((string) $locale);
            },
            $translator->getLocale(),
        ];
        $this->slots[] = [
            static fn (): mixed => RequestScope::cancellation(),
            static function (mixed $cancellation): void {
                RequestScope::enter($cancellation instanceof Cancellation ? $cancellation : null);
            },
            null,
        ];
    }

    public function save(): mixed
    {
        $saved = [];
        foreach ($this->slots as $i => [$get, $set, $fresh]) {
            $saved[$i] = $get();
            $set($fresh);
        }

        return $saved;
    }

    public function restore(mixed $saved): void
    {
        \assert(\is_array($saved));
        foreach ($this->slots as $i => [, $set]) {
            $set($saved[$i]);
        }
    }

    /**
     * The router's current route and request, and the route's parameters: a Route object is
     * one per route and bind() writes each request's parameters into it, so a request that
     * continues must find its own parameters there again.
     *
     * @return array{Closure(): mixed, Closure(mixed): void, mixed}
     */
    private static function currentRoute(Router $router): array
    {
        $current = new \ReflectionProperty($router, 'current');
        $currentRequest = new \ReflectionProperty($router, 'currentRequest');
        $parameters = new \ReflectionProperty(Route::class, 'parameters');
        $original = new \ReflectionProperty(Route::class, 'originalParameters');
        $get = static function () use ($router, $current, $currentRequest, $parameters, $original): array {
            $route = $current->getValue($router);

            return $route instanceof Route
                ? [$route, $currentRequest->getValue($router), $parameters->getValue($route), $original->getValue($route)]
                : [$route, $currentRequest->getValue($router), null, null];
        };
        $set = static function (mixed $values) use ($router, $current, $currentRequest, $parameters, $original): void {
            \assert(\is_array($values));
            [$route, $request, $routeParameters, $originalParameters] = $values;
            $current->setValue($router, $route);
            $currentRequest->setValue($router, $request);
            if ($route instanceof Route) {
                $parameters->setValue($route, $routeParameters);
                $original->setValue($route, $originalParameters);
            }
        };

        return [$get, $set, $get()];
    }

    /**
     * One key of an array property (the container's instances, the facades' resolved
     * instances); a key that was absent is absent again.
     *
     * @param Closure(): mixed $read
     * @param Closure(array<mixed>): void $write
     * @return array{Closure(): mixed, Closure(mixed): void, mixed}
     */
    private static function arrayEntry(Closure $read, Closure $write, string $key): array
    {
        $get = static function () use ($read, $key): array {
            $all = (array) $read();

            return \array_key_exists($key, $all) ? [$all[$key]] : [];
        };
        $set = static function (mixed $value) use ($read, $write, $key): void {
            $all = (array) $read();
            if (\is_array($value) && $value !== []) {
                $all[$key] = $value[0];
            } else {
                unset($all[$key]);
            }
            $write($all);
        };

        return [$get, $set, $get()];
    }

    /**
     * Some protected properties of one object as one slot; the fresh values are $fresh (by
     * position) or the ones they have now, at boot.
     *
     * @param list<string> $names
     * @param list<mixed> $fresh
     * @return array{Closure(): mixed, Closure(mixed): void, mixed}
     */
    private static function properties(object $object, array $names, array $fresh = []): array
    {
        $properties = \array_map(static fn (string $name): \ReflectionProperty => new \ReflectionProperty($object, $name), $names);
        $get = static function () use ($object, $properties): array {
            $values = [];
            foreach ($properties as $property) {
                $values[] = $property->getValue($object);
            }

            return $values;
        };
        $set = static function (mixed $values) use ($object, $properties): void {
            \assert(\is_array($values));
            foreach ($properties as $i => $property) {
                $property->setValue($object, $values[$i]);
            }
        };
        $now = $get();
        foreach ($fresh as $i => $value) {
            $now[$i] = $value;
        }

        return [$get, $set, $now];
    }
}
