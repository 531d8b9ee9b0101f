<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Symfony;

use Bobbin\Async\Async;
use Bobbin\Async\ErrorReporter;
use Bobbin\Async\Lock;
use Bobbin\Frameworks\RequestGate;
use Bobbin\Frameworks\RequestScope;
use Bobbin\Frameworks\Resets;
use Bobbin\Http\RequestCancellation;
use Closure;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\RequestHandlerInterface;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\HttpFoundation\Response;
use Symfony\Component\HttpKernel\HttpKernelInterface;
use Symfony\Component\HttpKernel\TerminableInterface;

/**
 * A Symfony HttpKernel as a PSR-15 handler, in worker mode: one kernel per worker serves every
 * request. Each request passes the gate (one at a time by default), is converted, handled and
 * converted back; the response goes to the server, and only then the kernel's terminate()
 * (kernel.terminate listeners: mails, profiler…) runs, in its own fiber, after which the gate
 * opens for the next request. A StreamedResponse's callback runs while the server sends it
 * (StreamedBody), inside the gate; terminate() follows it. Services tagged kernel.reset (ResetInterface) are reset by the
 * kernel itself when the next main request boots it, as Symfony does in any long-lived process.
 */
final class KernelHandler implements RequestHandlerInterface
{
    /**
     * @param list<Closure(): void> $afterEach resets after terminate(), before the next request
     */
    public function __construct(
        private readonly HttpKernelInterface $kernel,
        private readonly RequestGate $gate,
        private readonly array $afterEach = [],
        private readonly HttpFoundationBridge $bridge = new HttpFoundationBridge(),
    ) {
    }

    public function handle(ServerRequestInterface $request): ResponseInterface
    {
        $cancellation = RequestCancellation::of($request);
        $lock = $this->gate->enter($cancellation);
        if ($lock !== null) {
            // One request inside: framework code that cannot be handed the cancellation (a
            // database connection) finds it here.
            RequestScope::enter($cancellation);
        }
        try {
            $symfonyRequest = $this->bridge->toSymfonyRequest($request);
            $symfonyResponse = $this->kernel->handle($symfonyRequest);
            $response = $this->bridge->toPsrResponse($symfonyResponse, $symfonyRequest->getMethod(), $cancellation);
        } catch (\Throwable $error) {
            // HttpKernel turns what a controller throws into an error page; what escapes it
            // (or the conversion) goes to the server's 500, and the next request may enter.
            $this->finish($lock);
            throw $error;
        }
        $body = $response->getBody();
        if ($body instanceof StreamedBody) {
            // Its callback runs while the server sends it, still inside the gate; terminate() after.
            $body->afterwards(fn () => $this->terminate($symfonyRequest, $symfonyResponse, $lock));
        } else {
            Async::run($this->terminate(...), $symfonyRequest, $symfonyResponse, $lock)->ignore();
        }

        return $response;
    }

    private function terminate(Request $request, Response $response, ?Lock $lock): void
    {
        try {
            if ($this->kernel instanceof TerminableInterface) {
                $this->kernel->terminate($request, $response);
            }
        } catch (\Throwable $error) {
            ErrorReporter::report($error, \sprintf('Symfony kernel terminate() failed after %s %s', $request->getMethod(), $request->getRequestUri()));
        } finally {
            $this->finish($lock);
        }
    }

    private function finish(?Lock $lock): void
    {
        try {
            Resets::run($this->afterEach);
        } catch (\Throwable $error) {
            ErrorReporter::report($error, 'A reset after a Symfony request failed');
        } finally {
            if ($lock !== null) {
                RequestScope::leave();
                $lock->release();
            }
        }
    }
}
