<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Laravel;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\ErrorReporter;
use Bobbin\Async\Lock;
use Bobbin\Frameworks\Concurrency;
use Bobbin\Frameworks\RequestGate;
use Bobbin\Frameworks\RequestScope;
use Bobbin\Frameworks\Resets;
use Bobbin\Frameworks\StaticProperties;
use Bobbin\Frameworks\Symfony\HttpFoundationBridge;
use Bobbin\Frameworks\Symfony\StreamedBody;
use Bobbin\Http\RequestCancellation;
use Closure;
use Illuminate\Contracts\Http\Kernel as HttpKernel;
use Illuminate\Foundation\Application;
use Illuminate\Http\Request;
use Illuminate\Http\UploadedFile;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\RequestHandlerInterface;
use Symfony\Component\HttpFoundation\Response;

/**
 * A Laravel application as a PSR-15 handler: booted once per worker, one request at a time in
 * it (or, with Concurrency::Concurrent, several at once with FiberContext keeping each
 * request's state apart), and after each request (its terminate() included, run in its own fiber after the
 * response went to the server) the state Octane's listeners flush is flushed
 * (ApplicationResets), so an unchanged application behaves as under PHP-FPM.
 *
 * An APP_FILE for Bobbin is three lines beside public/index.php (examples/laravel/bobbin.php):
 *     require __DIR__.'/vendor/autoload.php';
 *     return Bobbin\Frameworks\Laravel\LaravelHandler::boot(__DIR__.'/bootstrap/app.php');
 */
final class LaravelHandler implements RequestHandlerInterface
{
    /** @param list<Closure(): void> $afterEach */
    private function __construct(
        private readonly Application $app,
        private readonly HttpKernel $kernel,
        private readonly RequestGate $gate,
        private readonly array $afterEach,
        private readonly ?FiberContext $context = null,
        private readonly HttpFoundationBridge $bridge = new HttpFoundationBridge(),
    ) {
    }

    /**
     * Boots the application bootstrap/app.php returns (configuration, providers, routes) now,
     * at the worker's start, not under the first request.
     *
     * @param list<class-string> $resetStatics classes whose static properties hold request
     *        state: put back after each request as they were after boot
     */
    public static function boot(string $bootstrapFile, array $resetStatics = [], ?Concurrency $concurrency = null): self
    {
        $concurrency ??= Concurrency::fromEnvironment(Concurrency::OneAtATime);
        if ($concurrency === Concurrency::Concurrent && \getenv('BOBBIN_LOOP_DRIVER') === 'revolt') {
            throw new \LogicException('Concurrent requests in a Laravel application need its state kept per fiber, which only Bobbin\'s own loop driver does (unset BOBBIN_LOOP_DRIVER=revolt)');
        }
        // A web request, not an artisan command: PHP_SAPI=cli would make runningInConsole() true.
        $_SERVER['APP_RUNNING_IN_CONSOLE'] = $_ENV['APP_RUNNING_IN_CONSOLE'] = 'false';
        $app = (static fn (string $file): mixed => require $file)($bootstrapFile);
        if (!$app instanceof Application) {
            throw new \UnexpectedValueException(\sprintf('%s returned %s, not an Illuminate\Foundation\Application', $bootstrapFile, \get_debug_type($app)));
        }
        $kernel = $app->make(HttpKernel::class);
        $kernel->bootstrap();
        $resets = [(new ApplicationResets($app))->afterRequest(...)];
        if ($resetStatics !== []) {
            $resets[] = StaticProperties::capture(...$resetStatics)->restore(...);
        }
        $context = null;
        if ($concurrency === Concurrency::Concurrent) {
            // Per-fiber context: each request's state leaves the application while it waits. The
            // services it swaps are resolved now; the URL generator wants a request to exist.
            if (!$app->bound('request')) {
                $app->instance('request', Request::create('http://localhost/'));
            }
            $context = new FiberContext($app);
            Async::keepPerFiber($context);
            $resets[] = static function () use ($app): void {
                // A request's connections (its pooled sessions) end with it.
                $db = $app->make('db');
                foreach (\array_keys($db->getConnections()) as $name) {
                    $db->purge((string) $name);
                }
            };
        }

        return new self($app, $kernel, new RequestGate($concurrency), $resets, $context);
    }

    public function application(): Application
    {
        return $this->app;
    }

    public function handle(ServerRequestInterface $request): ResponseInterface
    {
        $cancellation = RequestCancellation::of($request);
        if ($this->gate->concurrency === Concurrency::Concurrent) {
            return $this->handleConcurrently($request, $cancellation);
        }
        $lock = $this->gate->enter($cancellation);
        if ($lock !== null) {
            // One request inside: framework code that cannot be handed the cancellation (a
            // database connection) finds it here.
            RequestScope::enter($cancellation);
        }
        try {
            $laravelRequest = $this->toLaravelRequest($request);
            $laravelResponse = $this->kernel->handle($laravelRequest);
            $response = $this->bridge->toPsrResponse($laravelResponse, $laravelRequest->getMethod(), $cancellation);
        } catch (\Throwable $error) {
            $this->finish($lock);
            throw $error;
        }
        $body = $response->getBody();
        if ($body instanceof StreamedBody) {
            // Its callback runs while the server sends it, still inside the gate; terminate() after.
            $body->afterwards(fn () => $this->terminate($laravelRequest, $laravelResponse, $lock));
        } else {
            Async::run($this->terminate(...), $laravelRequest, $laravelResponse, $lock)->ignore();
        }

        return $response;
    }

    /**
     * Per-fiber context mode: no gate; FiberContext swaps the application's request state at
     * every wait. terminate() and the resets run in the request's own fiber before the
     * response goes out, while the state is still this request's.
     */
    private function handleConcurrently(ServerRequestInterface $request, ?Cancellation $cancellation): ResponseInterface
    {
        RequestScope::enter($cancellation);
        $streamed = false;
        try {
            $laravelRequest = $this->toLaravelRequest($request);
            $laravelResponse = $this->kernel->handle($laravelRequest);
            $response = $this->bridge->toPsrResponse($laravelResponse, $laravelRequest->getMethod(), $cancellation);
            $body = $response->getBody();
            if ($body instanceof StreamedBody && $this->context !== null) {
                // The callback runs in a fiber of its own while the server sends the body: the
                // request's state moves there (this fiber goes on as after the request), and
                // terminate() and the resets follow the callback, in that fiber.
                $state = $this->context->save();
                $streamed = true;
                $body->afterwards(function () use ($laravelRequest, $laravelResponse): void {
                    try {
                        $this->terminateInPlace($laravelRequest, $laravelResponse);
                    } finally {
                        $this->finish(null);
                        RequestScope::leave();
                    }
                }, fn () => $this->context->restore($state));

                return $response;
            }
            $this->terminateInPlace($laravelRequest, $laravelResponse);

            return $response;
        } finally {
            if (!$streamed) {
                $this->finish(null);
                RequestScope::leave();
            }
        }
    }

    private function terminateInPlace(Request $request, Response $response): void
    {
        try {
            $this->kernel->terminate($request, $response);
        } catch (\Throwable $error) {
            ErrorReporter::report($error, \sprintf('Laravel terminate() failed after %s %s', $request->getMethod(), $request->getRequestUri()));
        }
    }

    private function toLaravelRequest(ServerRequestInterface $request): Request
    {
        $laravelRequest = $this->bridge->toSymfonyRequest($request, Request::class, UploadedFile::class);
        if ($laravelRequest->isJson()) {
            // As Request::createFromBase() does for Request::capture().
            $laravelRequest->request = $laravelRequest->json();
        }

        return $laravelRequest;
    }

    private function terminate(Request $request, Response $response, ?Lock $lock): void
    {
        try {
            $this->kernel->terminate($request, $response);
        } catch (\Throwable $error) {
            ErrorReporter::report($error, \sprintf('Laravel terminate() failed after %s %s', $request->getMethod(), $request->getRequestUri()));
        } finally {
            $this->finish($lock);
        }
    }

    private function finish(?Lock $lock): void
    {
        try {
            Resets::run($this->afterEach);
        } catch (\Throwable $error) {
            ErrorReporter::report($error, 'A reset after a Laravel request failed');
        } finally {
            if ($lock !== null) {
                RequestScope::leave();
                $lock->release();
            }
        }
    }
}
