<?php

declare(strict_types=1);

namespace Bobbin\Http;

use Bobbin\Async\Async;
use Bobbin\Async\CancelledException;
use Bobbin\Async\OwnsResources;
use Bobbin\Async\StreamClosedException;
use Bobbin\Async\StreamWatcher;
use Bobbin\Http\Classic\CapturedOutput;
use Bobbin\Http\Form\FormData;
use Bobbin\Http\Form\MalformedBodyException;
use Throwable;

/**
 * One accepted client connection: read a request, hand it to the application, write the
 * response, repeat while keep-alive holds. Between requests it holds no fiber (a fiber is ~25 KiB):
 * a loop watch on its socket serves the next request in the loop's callback fiber (unpark()),
 * which a handler that waits takes over; so 1,000 busy keep-alive clients cost no 1,000 fibers.
 * Under TLS it keeps its fiber until PARK_AFTER_SECONDS idle (park()). Timeouts are
 * not timers of its own: the server's sweeper (OpenConnections::sweep) compares $deadline and
 * the data rate with the clock and calls expire() or drop(), so a request costs no timer.
 *
 * Over 400 lines on purpose: its per-request path avoids calls (docs/HTTP.md, Hot path); the rest
 * lives in ConnectionTimeouts, AbruptEnd, Lingering, OpenConnections, ResponseWriter, SlowClientWrite.
 *
 * @internal created by Server
 */
final class Connection
{
    use OwnsResources;

    /** Bytes asked for per read (Lingering's too). */
    public const READ_BYTES = 65536;
    /** How long a keep-alive connection stays idle before its fiber is given up. */
    public const PARK_AFTER_SECONDS = 1.0;
    /** What serveOne() left: another request may follow at once; parked; closed or to be closed. */
    private const NEXT = 0;
    private const RELEASED = 1;
    private const ENDED = 2;

    /**
     * A fresh connection counts as idle until its first byte (a graceful stop may close it).
     * Untyped, like the other properties written per request (the @var types are the
     * analyser's): PHP 8.2's tracing JIT calls a checking helper for each write to a typed
     * property, and these are written several times per request (docs/ASYNC.md, Rules).
     *
     * @var ConnectionPhase
     */
    public $phase = ConnectionPhase::Idle;
    /** @var float */
    public $deadline = 0.0;
    /** @var float when the current phase began: for an idle connection, since when it is idle */
    public $phaseSince = 0.0;
    /** @var float start of the current data-rate window (the bytes received or sent in it: $windowBytes) */
    public $windowStart = 0.0;
    /** @var int */
    public $windowBytes = 0;
    /** @var int requests started on this connection */
    public $requests = 0;
    /** When it was accepted: where its first request's time starts. */
    private readonly float $acceptedAt;
    /** @var int bytes read since the last request ended (added to the server's metrics then; $sent likewise) */
    private $received = 0;
    /** @var int public for FileSending, whose sendfile() bytes do not pass writeAll() */
    public $sent = 0;
    /** @var int bytes of the current response's head (ResponseWriter): the access log counts its body, as the common log format does */
    public $headBytes = 0;

    private readonly RequestParser $parser;
    private readonly StreamWatcher $watcher;
    private bool $closed = false;
    /** @var float when the last bytes were read, until something waits (0.0 then): from a read to the next wait only parsing happens, so its clock serves the deadlines and REQUEST_TIME */
    private $clock = 0.0;
    /** @var RequestHead|null the request handled, for log lines; kept until the next one (or a park), so a report made when its fiber lets go of the loop can name it */
    private $head = null;
    /** @var string the id of that request */
    private $requestId = '';
    /** @var bool the handled request passed its deadline and was cancelled (expire()) */
    private $pastDeadline = false;
    /** The handled request's cancellation, made when asked for (public for ResponseWriter, OpenConnections). */
    public readonly HandledRequestCancellation $cancellation;
    /** @var CapturedOutput|null what this connection's fiber echoes (taken after each request) */
    private $output = null;
    /** @var FormData|null the handled request's decoded multipart form, whose temporary files go when it is done */
    private $form = null;
    /** @var \Fiber<mixed, mixed, mixed, mixed>|null the connection's fiber, for a crash report (endAbruptly()) */
    private $fiber = null;
    /** While parked: the loop watch that serves the connection when the client sends again. */
    private ?string $parkedWatch = null;
    /** The watch made at the first park, left enabled while served (paused by a wake then, unpark()). */
    private ?string $parkWatch = null;
    /** @var bool whether $parkWatch is paused */
    private $parkWatchPaused = false;
    /** Whether it parks between requests, without a fiber (not under TLS: OpenSSL's decrypted bytes wake no watch). */
    private readonly bool $releases;
    /** @var float when the last response was written: an idle connection's phase starts then (public for Server::requestRunningIn()) */
    public $doneAt = 0.0;

    /** @param resource $socket non-blocking, read buffering off; TLS already running on it when $encrypted; public for FileSending's sendfile() */
    public function __construct(
        private readonly ServerContext $context,
        private readonly OpenConnections $connections,
        private readonly RequestBudget $budget,
        public readonly mixed $socket,
        private readonly ConnectionOrigin $origin,
        bool $encrypted = false,
    ) {
        $this->parser = RequestParser::fromConfig($context->config, $context->requestHeads);
        $this->cancellation = new HandledRequestCancellation();
        $this->watcher = new StreamWatcher($socket);
        $encrypted && $this->watcher->noteTlsStarted(); // decrypted bytes OpenSSL holds wake no poll
        $this->releases = !$encrypted;
        $now = Async::readyTime($socket);
        $this->deadline = $now + $context->config->headerTimeout;
        $this->phaseSince = $this->windowStart = $this->acceptedAt = $now;
    }

    public function isClosed(): bool
    {
        return $this->closed;
    }

    /**
     * For an upgrade (a WebSocket, ResponseWriter): the socket, its watcher, the bytes read past the
     * request and the open connections (to hear of a graceful stop); the new protocol keeps its time.
     *
     * @return array{resource, StreamWatcher, string, OpenConnections}
     */
    public function takeOver(): array
    {
        $this->phase = ConnectionPhase::Upgraded;
        $this->deadline = \INF;
        $this->cancellation->end();
        $buffer = $this->parser->buffer;
        $this->parser->buffer = '';

        return [$this->socket, $this->watcher, $buffer, $this->connections];
    }

    /** Serves requests until the connection ends or parks; $ready: the socket was found readable (unpark()). */
    public function run(bool $ready = false): void
    {
        $this->fiber = \Fiber::getCurrent(); // for diagnostics only; Async::currentFiber() is a static call more per request
        $this->output = $this->context->classic->begin();
        $parked = $released = false;
        try {
            $released = $this->serve($ready);
        } catch (ConnectionParkedException) {
            $parked = true;
        } catch (StreamClosedException) {
            // Closed under us by the sweeper, to make room, or by a forced stop.
        } catch (Throwable $error) {
            $this->close(); // first: a logger that throws leaves no connection open
            $this->context->logger->error('Connection failed: {error}', ['error' => $error, 'exception' => $error]);

            return;
        }
        // Not in a finally block: one stops the tracing JIT (FAST_CALL) on every request's way back.
        if (($parked || $released) && !$this->closed) {
            // The fiber goes on (the callback fiber) or ends; $fiber names it for a report of a hold.
            if ($parked) {
                $this->forgetWhileIdle();
            }
            $this->waitParked();
        } else {
            $this->close();
        }
    }

    /** What a connection idle for long lets go of (the sweeper's park()): kept for the next request otherwise. */
    private function forgetWhileIdle(): void
    {
        $this->fiber = $this->output = $this->head = null;
        $this->parser->forgetLastHead();
        $this->watcher->forgetLastWaiter();
        $this->origin->forgetServerParams();
    }

    /** Parks: the loop watches the socket for the client's next bytes (unpark()). */
    private function waitParked(): void
    {
        if ($this->parkWatch === null) {
            $this->parkedWatch = $this->parkWatch = $this->connections->watchParked($this, $this->socket);

            return;
        }
        if ($this->parkWatchPaused) {
            $this->parkWatchPaused = false;
            $this->connections->watchParkedAgain($this->parkWatch);
        }
        $this->parkedWatch = $this->parkWatch;
    }

    /**
     * Starts serving a connection just accepted: its request is usually in the socket already;
     * otherwise it waits parked and costs no fiber (16 KiB of VM stack alone) until its first
     * bytes, so that a burst of connections that send nothing yet cannot exhaust the memory.
     */
    public function start(): void
    {
        $data = @\fread($this->socket, self::READ_BYTES);
        // TLS: no feof() before the socket is readable (StreamWatcher::goneAfterEmptyRead()).
        if ($data === false || ($data === '' && $this->releases && \feof($this->socket))) {
            $this->close();

            return;
        }
        if ($data === '') {
            $this->waitParked();

            return;
        }
        $this->bytesArrived($data, $this->acceptedAt);
        Async::run($this->run(...))->ignore();
    }

    /** The sweeper's, for a connection idle PARK_AFTER_SECONDS: ends its fiber waiting in fill(), if it still waits. */
    public function park(): void
    {
        if ($this->parkedWatch !== null) {
            // Parked between requests already: what it kept for the next one goes, once (each
            // sweep passes here for every idle connection).
            $this->fiber === null || $this->forgetWhileIdle();

            return;
        }
        if ($this->closed || $this->phase !== ConnectionPhase::Idle || $this->requests === 0 || $this->parser->buffer !== '') {
            return;
        }
        $this->watcher->interruptRead(new ConnectionParkedException());
    }

    /** The client sent again (the parked socket's watch): served in the loop's callback fiber, which a handler that waits takes over. */
    public function unpark(): void
    {
        if ($this->parkedWatch === null) {
            if ($this->parkWatch !== null && !$this->parkWatchPaused && !$this->closed) {
                // Served meanwhile by a fiber that waits: it reads what came itself.
                $this->parkWatchPaused = true;
                $this->connections->pauseParked($this->parkWatch);
            }

            return;
        }
        $this->parkedWatch = null;
        if (!$this->closed) {
            $this->run(true);
        }
    }

    /**
     * The sweeper's, once $deadline has passed: answers what the phase calls for (best effort) and
     * closes; a request in the application's hands is first cancelled and given its settle time.
     */
    public function expire(): void
    {
        if ($this->closed) {
            return;
        }
        $timeouts = $this->connections->timeouts;
        if ($this->phase === ConnectionPhase::Handling && !$this->pastDeadline) {
            $this->pastDeadline = true;
            $this->deadline = $timeouts->cancelLateRequest($this->head, $this->requestId, $this->cancellation->ofHandledRequest());

            return;
        }
        $status = $timeouts->statusAt($this->phase, $this->head, $this->requestId);
        if ($status !== 0) {
            // Only a request in the application's hands has an id yet.
            $requestId = $this->phase === ConnectionPhase::Handling ? $this->requestId : '';
            @\fwrite($this->socket, $this->context->framer->errorResponse($status, requestId: $requestId));
        }
        $this->close();
    }

    /** Closes it for OpenConnections (to make room, a client too slow); a client sending a request is told so (408). */
    public function drop(ConnectionDrop $reason): void
    {
        if ($this->closed) {
            return;
        }
        if ($this->phase === ConnectionPhase::ReadingHead || $this->phase === ConnectionPhase::ReadingBody) {
            @\fwrite($this->socket, $this->context->framer->errorResponse(408));
        }
        $this->close();
    }

    /** The request this connection's fiber $fiber serves, or served last (its response is written); null for another fiber. */
    public function requestRunningIn(object $fiber): ?RunningRequest
    {
        $head = $this->head;
        if ($fiber !== $this->fiber || $head === null) {
            return null;
        }

        return new RunningRequest($head->method, $head->target, $this->requestId);
    }

    /**
     * For the process's shutdown (AbruptEnd, which answers and closes): what this connection
     * holds, with its socket; null when it is closed. From here on it counts as closed: the
     * loop, which close() would tell, is gone.
     */
    public function handOverAtEnd(): ?ConnectionAtEnd
    {
        if ($this->closed) {
            return null;
        }
        $this->closed = true;

        return new ConnectionAtEnd(
            $this->socket,
            $this->phase,
            $this->head,
            $this->requestId,
            $this->parser->buffer !== '',
            $this->fiber !== null && $this->fiber->isTerminated(),
            // The request deadline still tells when handling began: no clock is kept per request for this rare end.
            $this->deadline - $this->context->config->requestTimeout,
            $this->requests === 0,
        );
    }

    /** For a graceful stop: bytes of a request no fiber has read yet (closing would reset a request already sent). */
    public function hasRequestOnItsWay(): bool
    {
        return $this->parser->buffer !== '' || Async::isReadableNow($this->socket);
    }

    /** Closes the socket now; a fiber waiting on it wakes with StreamClosedException. */
    public function close(): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        if ($this->parkWatch !== null) {
            $this->connections->unwatchParked($this->parkWatch, $this->socket);
            $this->parkedWatch = $this->parkWatch = null;
        }
        $this->cancellation->cancel(new CancelledException('The connection was closed before the response was complete'));
        $this->watcher->close();
        @\fclose($this->socket);
        $this->connections->closed($this);
    }

    /** Serves requests until the connection parks (true: the next request is unpark()'s) or ends (false). */
    private function serve(bool $ready): bool
    {
        // The usual request meets no loop: a loop is a JIT trace of its own (docs/ASYNC.md, Rules).
        $next = $this->serveOne($ready);

        return ($next === self::NEXT ? $this->serveMore() : $next) === self::RELEASED;
    }

    /** What follows a request at once: a pipelined one, a fiber kept between requests (TLS), a stop's idle grace. */
    private function serveMore(): int
    {
        $connections = $this->connections;
        while (!$connections->stopping || $this->parser->buffer !== '' || $connections->idleGraceUntil > 0.0) {
            $next = $this->serveOne(false);
            if ($next !== self::NEXT) {
                return $next;
            }
        }

        return self::ENDED;
    }

    /** One request: its bytes read, handed to the application, answered; NEXT, RELEASED or ENDED. */
    private function serveOne(bool $ready): int
    {
        $context = $this->context;
        $config = $context->config;
        $connections = $this->connections;
        $parser = $this->parser;
        $handler = $context->handler;
        $writer = $context->responseWriter;
        try {
            if ($parser->buffer === '') {
                // Idle since its last response (set as that ended).
                if ($this->requests > 0 && $connections->stopping) {
                    // A stop with an idle grace: wait briefly for a request already on its way.
                    $this->deadline = \min($this->deadline, $connections->idleGraceUntil);
                }
                if ($ready) {
                    $data = @\fread($this->socket, self::READ_BYTES);
                    if ($data === false || ($data === '' && $this->watcher->goneAfterEmptyRead())) {
                        return self::ENDED;
                    }
                    if ($data !== '') {
                        $this->bytesArrived($data, Async::readyTime($this->socket));
                    } elseif ($this->releases && !$connections->stopping) {
                        return self::RELEASED; // woken for nothing: parked again
                    } // else (TLS: part of a record) fill() waits for the rest below
                }
            } elseif ($this->phase !== ConnectionPhase::ReadingHead) {
                // A pipelined request, already (partly) in the buffer.
                $this->phase = ConnectionPhase::ReadingHead;
                $this->clock = $this->phaseSince = $this->windowStart = \microtime(true);
                $this->windowBytes = \strlen($parser->buffer);
                $this->deadline = $this->clock + $config->headerTimeout;
            }
            // After a response the buffer is usually empty: wait for bytes before parsing nothing.
            if ($parser->buffer === '' && !$this->fill()) {
                return self::ENDED;
            }
            $head = $parser->nextHead();
            if ($head === null && ($head = $this->awaitHead()) === null) {
                return self::ENDED;
            }
            $body = '';
            if ($head->chunked || $head->contentLength > 0) { // RequestHead::hasBody(), without the call
                $this->phase = ConnectionPhase::ReadingBody;
                $this->phaseSince = $this->windowStart = $this->clock > 0.0 ? $this->clock : \microtime(true);
                $this->windowBytes = \strlen($parser->buffer);
                $this->deadline = $this->phaseSince + $config->bodyTimeout;
                if ($head->expectsContinue && $parser->buffer === '') {
                    $this->headBytes = 25; // an interim head: no part of the body the access log counts
                    if (!$this->writeAll("HTTP/1.1 100 Continue\r\n\r\n")) {
                        return self::ENDED;
                    }
                }
                while (($body = $parser->readBody($head)) === null) {
                    if (!$this->fill()) {
                        return self::ENDED;
                    }
                }
            }
        } catch (ProtocolException $error) {
            // Once its head is read (a body refused), a request has an id: the answer carries it.
            Lingering::reject($this, $this->watcher, $context, $this->origin->remoteAddress, $error->status, $error->getMessage(), $this->phase === ConnectionPhase::ReadingBody && isset($head) ? $context->requestIds->for($head->requestId) : '');

            return self::ENDED;
        }

        $this->requests++;
        $this->budget->requestStarted();
        $now = $this->clock > 0.0 ? $this->clock : \microtime(true);
        // Its time starts when its bytes were found ready (at the accept for a first request),
        // so time queued behind other work in the worker counts.
        $start = $this->requests === 1 ? $this->acceptedAt : $now;
        $requestId = $context->requestIds->for($head->requestId);
        $this->clock = 0.0; // the handler may wait
        $this->phase = ConnectionPhase::Handling;
        $this->deadline = $now + $config->requestTimeout;
        $this->head = $head;
        $this->requestId = $requestId;
        $this->pastDeadline = false;
        $cancellation = $this->cancellation;
        $cancellation->request = $this->requests; // its cancellation is made when asked for
        try {
            $request = $context->requestBuilder->build($head, $body, $now, $cancellation, $requestId, $this->origin, $this->form);
        } catch (\InvalidArgumentException | MalformedBodyException $error) {
            // A form decoded before the URI was refused has written its files already.
            $this->form?->removeTemporaryFiles();
            $this->form = null;
            Lingering::reject($this, $this->watcher, $context, $this->origin->remoteAddress, 400, $error->getMessage(), $requestId);

            return self::ENDED;
        }
        $failure = null;
        try {
            $response = $handler->handle($request);
        } catch (Throwable $error) {
            $failure = $error;
            if (!$this->endedByItsDeadline($error) && !$this->isClosed()) {
                $context->logger->error('The application failed on {method} {target} (request {request_id}): {error}', [
                    'method' => $head->method, 'target' => $head->target, 'request_id' => $requestId, 'error' => $error, 'exception' => $error,
                ]);
            }
            $response = null;
        }
        $response = $context->classic->finish($response, $this->output, $head->method, $head->target);
        if ($this->form !== null) {
            $this->form->removeTemporaryFiles();
            $this->form = null;
        }
        if ($this->closed) {
            // Timed out and answered with 503, or its client left: the late result has nobody to go to.
            return self::ENDED;
        }
        $keepAlive = $head->keepAlive && !$connections->stopping
            && ($config->maxRequestsPerConnection === 0 || $this->requests < $config->maxRequestsPerConnection);
        if ($response === null) {
            $status = $failure === null ? 500 : FailedRequest::statusFor($failure, $this->pastDeadline);
            // The framing is intact: the connection goes on.
            $written = $writer->respondWithError($this, $status, $keepAlive, $config->debugErrors ? $failure : null, $requestId);
        } else {
            $written = $writer->respond($this, $response, $head, $keepAlive, $requestId, $status);
        }
        // Live while a streamed body was written: its source stops when the client leaves.
        $cancellation->source = null;
        $cancellation->request = 0;
        $this->doneAt = \microtime(true);
        $seconds = $this->doneAt - $start;
        $metrics = $context->metrics;
        $metrics->requestDone($head->method, $status, $seconds);
        $metrics->receivedBytes += $this->received;
        $metrics->sentBytes += $this->sent;
        $context->accessLog?->request($this->origin->remoteAddress, $head, $status, \max(0, $this->sent - $this->headBytes), $seconds, $requestId);
        $this->received = $this->sent = $this->headBytes = 0;
        if (!$written) {
            return self::ENDED;
        }
        if (!$keepAlive) {
            Lingering::closeAfterLastResponse($this, $this->watcher);

            return self::ENDED;
        }
        $this->phase = ConnectionPhase::Idle;
        $this->phaseSince = $this->doneAt;
        $this->deadline = $this->doneAt + $config->idleTimeout;

        // The usual end: parked until the client sends again (unpark()), without a turn through
        // serveMore()'s loop.
        return $parser->buffer === '' && $this->releases && !$connections->stopping ? self::RELEASED : self::NEXT;
    }

    /** The rest of a head that came in parts (a loop of its own, off the usual way). */
    private function awaitHead(): ?RequestHead
    {
        do {
            if (!$this->fill()) {
                return null;
            }
        } while (($head = $this->parser->nextHead()) === null);

        return $head;
    }

    /** A request its deadline cancelled (expire() logged it); a method: the handler's call changes the property. */
    private function endedByItsDeadline(Throwable $error): bool
    {
        return $this->pastDeadline && $error instanceof CancelledException;
    }

    /** Waits for bytes and appends them to the parser's buffer; false once the client is gone. */
    private function fill(): bool
    {
        while (true) {
            $this->watcher->awaitReadable();
            $data = @\fread($this->socket, self::READ_BYTES);
            if ($data !== false && $data !== '') {
                break;
            }
            if ($data === false || $this->watcher->goneAfterEmptyRead()) {
                return false;
            }
        }
        $this->bytesArrived($data, Async::readyTime($this->socket));

        return true;
    }

    /** Bytes read from the client, found ready at $clock: the head's deadline starts with the first. */
    private function bytesArrived(string $data, float $clock): void
    {
        $this->clock = $clock;
        $this->watcher->emptyReads = 0;
        if ($this->phase === ConnectionPhase::Idle) {
            $this->phase = ConnectionPhase::ReadingHead;
            $this->phaseSince = $this->windowStart = $this->clock;
            $this->windowBytes = 0;
            $this->deadline = $this->clock + $this->context->config->headerTimeout;
        }
        $bytes = \strlen($data);
        $this->windowBytes += $bytes;
        $this->received += $bytes;
        $this->parser->buffer .= $data;
    }

    /** Writes all of $data, waiting for the client to read when its window is full (SlowClientWrite); public for ResponseWriter. */
    public function writeAll(string $data): bool
    {
        $written = @\fwrite($this->socket, $data);
        if ($written === \strlen($data)) {
            $this->windowBytes += $written;
            $this->sent += $written;

            return true;
        }
        $this->clock = 0.0; // about to wait: the last read's time goes stale

        return SlowClientWrite::finish($this, $this->watcher, $data, $written, $this->context->config->writeTimeout);
    }
}
