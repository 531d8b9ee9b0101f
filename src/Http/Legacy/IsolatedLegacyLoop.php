<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Lock;
use Bobbin\Async\Semaphore;
use Bobbin\Http\Classic\ClassicResponse;
use Bobbin\Http\Classic\HeaderCapture;
use Bobbin\Http\Classic\SapiFlushHook;
use Bobbin\Http\FailedRequest;
use Bobbin\Http\RequestCancellation;
use Bobbin\Http\RequestIds;
use Closure;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Log\LoggerInterface;

/**
 * The legacy mode's default loop: every request runs its script in a fresh process, so it
 * starts from the state PHP-FPM gives it — whatever an earlier request declared, set, opened or
 * registered is not there (docs/LEGACY.md, "Why nothing carries over").
 *
 * The worker is the parent: it holds the server (connections, keep-alive, timeouts, access log,
 * metrics) and never runs application code. For each request it forks (in {main}, at the
 * global scope of bin/bobbin): the child sets up the request (RequestStage), returns true from
 * next() so bin/bobbin includes the script, and ends with ScriptProcessEnd, which sends the
 * response back over a socket pair and leaves with _exit(). The parent reads it (ScriptChild),
 * answers the client, reaps the child. At most $children scripts run at once; further requests
 * wait in the gateway's queue, where a request past its deadline gets the "not done" 503.
 *
 * @internal behind LegacyGateway
 */
final class IsolatedLegacyLoop implements ScriptLoop
{
    private readonly Semaphore $slots;
    private readonly WebSapiSettings $sapi;
    private int $running = 0;
    /** Cancelled once the gateway is closed: no more requests, the worker is ending. */
    private readonly CancellationSource $closing;
    /** Set in a child only: how its process ends. */
    private ?ScriptProcessEnd $end = null;
    /** The memory a child frees to answer when its script exhausted memory_limit (ScriptProcessEnd); moved to the child. */
    private ?string $reserve;
    /** Set in a child only, with --legacy-docroot: the file its request's path names. */
    private ?string $routedScript = null;

    /**
     * @param Closure(): int $onEnd the worker's clean-up once no request will come; returns its exit code
     * @param int $children scripts running at once (--legacy-children)
     * @param string $memoryLimit memory_limit of each script's process (--legacy-memory-limit)
     * @param float $requestTimeout --request-timeout: a script still running past it (and the settle time) is killed
     */
    public function __construct(
        private readonly string $script,
        private readonly LegacyGateway $gateway,
        private readonly LoggerInterface $logger,
        private readonly Closure $onEnd,
        private readonly int $children,
        private readonly string $memoryLimit,
        private readonly float $requestTimeout,
        /** --legacy-docroot's directory: its paths are kept in the realpath cache children inherit */
        private readonly ?string $documentRoot = null,
        /** The legacy pool: scripts run in its processes instead of one forked per request */
        private readonly ?LegacyPool $pool = null,
    ) {
        if ($children < 1) {
            throw new \InvalidArgumentException('--legacy-children must be at least 1');
        }
        $this->slots = new Semaphore($children);
        $this->closing = new CancellationSource();
        if ($pool !== null) {
            // The pool's processes keep their own caches from one request to the next, as
            // PHP-FPM's children do; nothing of the fork's set-up is needed.
            $this->sapi = new WebSapiSettings();
            $this->reserve = null;
            $pool->start();
            // Nothing runs at the global scope: each request goes to the pool from its own
            // connection's fiber, with no queue and no fiber of its own.
            $gateway->runInPlace($this->runPooled(...));

            return;
        }
        $this->sapi = WebSapiSettings::fromLoadedIni();
        $this->reserve = ScriptProcessEnd::makeReserve();
        ChildProcessCalls::bind();
        UploadedFileRegistry::bind();
        SapiFlushHook::bind();
        // PHP-FPM runs a script from its own directory: relative includes find their files.
        @\chdir(\dirname($script));
        if ($documentRoot !== null) {
            RealpathCacheWarmer::warm($documentRoot);
            RegexCacheWarmer::warm($documentRoot);
            Async::run($this->keepRealpathCacheWarm(...), $documentRoot)->ignore();
        }
    }

    /** In the worker, while it serves: the cache's entries resolved again before they expire. */
    private function keepRealpathCacheWarm(string $documentRoot): void
    {
        // A child never resumes this fiber: it runs no loop, it runs its script and ends.
        $closing = $this->closing->token();
        try {
            while (!$closing->isRequested()) {
                Async::delay(RealpathCacheWarmer::interval(), $closing);
                RealpathCacheWarmer::warm($documentRoot);
            }
        } catch (CancelledException) {
            // the worker is ending
        }
    }

    /** Why this PHP cannot run the isolated legacy mode, or null when it can. */
    public static function unsupportedBecause(): ?string
    {
        if (!\function_exists('pcntl_fork') || !\function_exists('posix_kill')) {
            return 'the legacy mode runs each request in a process of its own: it needs the pcntl and posix extensions';
        }
        if (!HeaderCapture::enable() || !ChildProcessCalls::bind()) {
            return 'the legacy mode needs FFI (ffi.enable=preload or true, as PHP\'s CLI has by default) to keep the headers scripts set with header()';
        }

        return null;
    }

    public function script(): string
    {
        return $this->routedScript ?? $this->script;
    }

    /**
     * In the worker: takes request after request and forks a process for each (with the pool:
     * waits while the requests run in place); returns false once the gateway is closed and
     * every script has answered. In a child: returns true, with the stage set for its one request.
     */
    public function next(): bool
    {
        if ($this->end !== null) {
            return false; // a child serves one request (not reached: it ends at its shutdown)
        }
        if ($this->pool !== null) {
            $this->gateway->next(); // null once closed: nothing is queued when requests run in place
            $this->closing->cancel();
            $this->awaitRunningScripts();

            return false;
        }
        while (true) {
            $slot = $this->slots->acquire();
            $item = $this->gateway->next();
            if ($item === null) {
                $this->closing->cancel();
                $slot->release();
                $this->awaitRunningScripts();

                return false;
            }
            if ($this->fork($item, $slot)) {
                return true;
            }
        }
    }

    private function awaitRunningScripts(): void
    {
        while ($this->running > 0) {
            Async::delay(0.01);
        }
    }

    /**
     * With the pool, in the request's own fiber (LegacyGateway::runInPlace()): waits for one of
     * the pool's processes as a queued request waits for its turn (a CancelledException while
     * it waits: nothing was done), then runs the script there and completes the response.
     */
    private function runPooled(QueuedRequest $item, ?Cancellation $cancellation): void
    {
        if ($this->closing->isRequested() || $this->pool === null) {
            $item->response->fail(new \RuntimeException('The worker is stopping: the legacy script was not run'));

            return;
        }
        $slot = $this->slots->acquire($cancellation);
        $item->started = true;
        try {
            $child = $this->pool->open($item->request, $this->script);
        } catch (\RuntimeException $error) {
            $slot->release();
            $item->response->fail($error);

            return;
        }
        $this->running++;
        $this->watch($child, $item, $slot, \microtime(true) + $this->requestTimeout + FailedRequest::SETTLE_SECONDS);
    }

    /** In a child: the script ran to its end; PHP's shutdown ends the process (ScriptProcessEnd). */
    public function finish(): void
    {
        exit(0);
    }

    /**
     * In a child: the script threw. Thrown on, out of bin/bobbin's global scope, it is uncaught
     * as under PHP-FPM: the script's exception handler, or PHP's fatal error (logged and shown
     * as the ini says, a 500 when not shown).
     */
    public function fail(\Throwable $error): void
    {
        throw $error;
    }

    public function end(): int
    {
        $this->pool?->stop();
        InputStream::withdraw();

        return ($this->onEnd)();
    }

    /** @return bool true in the child */
    private function fork(QueuedRequest $item, Lock $slot): bool
    {
        $pair = @\stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        $pid = $pair === false ? -1 : \pcntl_fork();
        if ($pair === false || $pid === -1) {
            $slot->release();
            if ($pair !== false) {
                \fclose($pair[0]);
                \fclose($pair[1]);
            }
            $item->response->fail(new \RuntimeException('Could not start a process for the legacy script: ' . (\error_get_last()['message'] ?? 'fork failed')));

            return false;
        }
        if ($pid === 0) {
            \fclose($pair[0]);
            $this->becomeChild($item, $pair[1]);

            return true;
        }
        \fclose($pair[1]);
        $this->running++;
        $hardDeadline = \microtime(true) + $this->requestTimeout + FailedRequest::SETTLE_SECONDS;
        Async::run($this->watch(...), new ScriptChild($pid, $pair[0]), $item, $slot, $hardDeadline)->ignore();

        return false;
    }

    /** @param resource $socket */
    private function becomeChild(QueuedRequest $item, $socket): void
    {
        $parent = \posix_getppid();
        foreach ([\SIGTERM, \SIGINT, \SIGHUP, \SIGCHLD] as $signal) {
            \pcntl_signal($signal, \SIG_DFL);
        }
        ChildProcessCalls::dieWithParent();
        if (\posix_getppid() !== $parent) {
            ChildProcessCalls::exitNow(0); // the parent ended before the line above
        }
        // The output goes to the process's own stdout, through PHP's output layer as under
        // PHP-FPM (buffers, headers_sent(), flush()), not through the worker's capture.
        while (\ob_get_level() > 0 && @\ob_end_clean()) {
            // the worker's OutputCapture handler
        }
        if (!ChildProcessCalls::captureStdout()) {
            ChildProcessCalls::exitNow(71); // the parent answers 500
        }
        \ini_set('memory_limit', $this->memoryLimit);
        \ini_set('html_errors', $this->sapi->htmlErrors ? '1' : '0');
        \ini_set('max_execution_time', (string) $this->sapi->maxExecutionTime);
        RequestStage::enter($item->request);
        UploadedFileRegistry::register($_FILES);
        $route = $item->request->getAttribute(ScriptRoute::ATTRIBUTE);
        if ($route instanceof ScriptRoute) {
            $this->routedScript = $route->scriptFilename;
            @\chdir(\dirname($route->scriptFilename)); // as PHP-FPM: the script's own directory
        }
        if ($this->sapi->outputBuffering !== null) {
            \ob_start(null, $this->sapi->outputBuffering);
        }
        // The child's only reference to the reserve is its end's, so freeing it there frees it.
        $this->end = new ScriptProcessEnd($socket, (string) $this->reserve);
        $this->reserve = null;
        $this->end->arm();
        SapiFlushHook::install($this->end->flush(...));
        // As a PHP-FPM request starts: no last error (the worker's own, a refused accept() for
        // one, is not the script's), none of PCRE's.
        \error_clear_last();
        if (\preg_last_error() !== \PREG_NO_ERROR) {
            \preg_match('/^/', '');
        }
    }

    private function watch(ScriptChild $child, QueuedRequest $item, Lock $slot, float $hardDeadline): void
    {
        $request = $item->request;
        $cancellation = RequestCancellation::of($request);
        $streaming = false;
        try {
            $frame = $child->response($cancellation, $hardDeadline);
            if ($frame->more) {
                // The script flushed: the client gets its output as it comes; the child is reaped
                // and its slot released when the last frame came (or the body was dropped).
                $streaming = true;
                $body = new ScriptOutputStream(
                    $frame->body,
                    static fn (): ScriptResponseFrame => $child->response($cancellation, $hardDeadline),
                    function (?\Throwable $error, string $fatalError) use ($child, $request, $slot): void {
                        if ($fatalError !== '') {
                            $this->logFailure($request, $fatalError);
                        }
                        if ($error !== null) {
                            $child->kill();
                        }
                        Async::run(function () use ($child, $slot): void {
                            $this->release($child, $slot);
                        })->ignore();
                    },
                );
                $item->response->complete(ClassicResponse::fromScript($frame->headerLines, $frame->status, $body));

                return;
            }
            $response = ClassicResponse::fromScript($frame->headerLines, $frame->status, $frame->body);
            if ($frame->fatalError !== '') {
                $this->logFailure($request, $frame->fatalError);
                // What else the client sent on this connection is not answered by this process's
                // end: the client is told so, and sends it again on a new one.
                $response = $response->withHeader('Connection', 'close');
            }
            $item->response->complete($response);
        } catch (\Throwable $error) {
            $item->response->fail($error);
        } finally {
            if (!$streaming) {
                $this->releaseSoon($child, $slot);
            }
        }
    }

    /**
     * At once when the process is done with (reaped, or its connection closed); else by a
     * fiber of its own, so that the response is not held back (a pool's script that called
     * fastcgi_finish_request() runs on after it).
     */
    private function releaseSoon(ScriptChild $child, Lock $slot): void
    {
        if ($child->endedAlready()) {
            $this->release($child, $slot);

            return;
        }
        Async::run(function () use ($child, $slot): void {
            $this->release($child, $slot);
        })->ignore();
    }

    private function release(ScriptChild $child, Lock $slot): void
    {
        $child->reap();
        $this->running--;
        $slot->release();
    }

    private function logFailure(ServerRequestInterface $request, string $fatalError): void
    {
        if ($this->pool !== null && \str_contains($fatalError, 'Class "Bobbin\\')) {
            // The one way a script that ran on the fork runner fails on the pool: it used Bobbin.
            $fatalError .= ' (a legacy pool\'s process is a clean PHP without Bobbin\'s classes; scripts that use them, Jobs::shared() for one, need --legacy-runner=fork: docs/LEGACY.md)';
        }
        $this->logger->error('The legacy script failed on {method} {target} (request {request_id}): {error}', [
            'method' => $request->getMethod(), 'target' => $request->getRequestTarget(),
            'request_id' => $request->getAttribute(RequestIds::ATTRIBUTE), 'error' => $fatalError,
        ]);
    }
}
