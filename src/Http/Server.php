<?php

declare(strict_types=1);

namespace Bobbin\Http;

use Bobbin\Async\Async;
use Bobbin\Async\CancelledException;
use Bobbin\Async\DeferredFuture;
use Bobbin\Async\Future;
use Bobbin\Async\OwnsResources;
use Bobbin\Async\Signals;
use Bobbin\Async\StreamClosedException;
use Bobbin\Async\StreamWatcher;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Async\Timer;
use Closure;
use Psr\Http\Server\RequestHandlerInterface;
use Psr\Log\LoggerInterface;

/**
 * One HTTP/1.1 server on the current event loop: accepts connections on one listening socket
 * and serves each in its own fiber. A worker process runs one; the master may bind the socket
 * itself (Server::listen()) and hand it to each worker.
 *
 * Accepting never stops while room can be made: at the connection limit a waiting client gets
 * the place of an idle or slow connection (OpenConnections::makeRoom()).
 *
 * Over 400 lines: the listener, the accept loop with its admission limits, a connection's setup
 * (TCP options, its origin, TLS) and the stop with its drain; each connection's own work is
 * Connection's.
 */
final class Server
{
    use OwnsResources;

    /** At a stop without an idle grace, how long an accepted connection may take to send its first request. */
    private const FIRST_REQUEST_GRACE_SECONDS = 0.5;
    private const ACCEPTS_PER_WAKE = 32;
    private const ACCEPT_BACKOFF_SECONDS = 0.1;
    /** At the connection limit with nothing to close: how long accepting waits before it looks again. */
    private const FULL_RECHECK_SECONDS = 0.25;

    private readonly OpenConnections $connections;
    private readonly MemoryAdmission $memory;
    private readonly ServerMetrics $metrics;
    private readonly ServerContext $context;
    private readonly RequestBudget $budget;
    /** @var resource|null */
    private $listener;
    private readonly bool $ownsListener;
    private ?StreamWatcher $acceptWatcher = null;
    /** Completed when a connection closes while accepting waits at the limit. @var DeferredFuture<null>|null */
    private ?DeferredFuture $room = null;
    private ?Timer $sweeper = null;
    /** @var array<string, string>|null the server parameters every connection to this listener shares */
    private ?array $listenerParams = null;
    private ?Timer $drainTimer = null;
    /** The SIGUSR1 handler that reopens --access-log-file, while serving. */
    private ?string $reopenSignal = null;
    /** HTTPS on the listener (--tls-cert); null for plain HTTP. */
    private ?TlsTermination $tls = null;
    private bool $stopping = false;
    /** @var DeferredFuture<null> */
    private readonly DeferredFuture $stopped;
    private string $address = '';
    private float $lastDescriptorWarning = 0.0;
    private string $localHost = '';
    private int $localPort = 0;

    /**
     * @param resource|null $listener an already bound, listening server socket (from listen());
     *                                null makes start() bind $config->listen itself
     * @param string $scriptFilename the application file, for SCRIPT_FILENAME and its kin in
     *                               the server parameters ('' for none)
     */
    public function __construct(
        public readonly ServerConfig $config,
        RequestHandlerInterface $handler,
        private readonly LoggerInterface $logger,
        $listener = null,
        string $scriptFilename = '',
    ) {
        $this->listener = $listener;
        $this->ownsListener = $listener === null;
        $this->stopped = new DeferredFuture();
        $this->connections = new OpenConnections($config, $logger, $this->wakeAcceptLoop(...));
        $this->memory = MemoryAdmission::fromMemoryLimit($logger);
        $this->metrics = new ServerMetrics($this->connections->statistics, fn (): array => [
            'connections' => $this->connections->count(),
            'inFlight' => $this->inFlightCount(),
        ]);
        if ($config->static !== []) {
            // Before the application: a file under a mount is answered without it.
            $handler = new StaticFiles\StaticFilesHandler(\array_map(StaticFiles\StaticMount::parse(...), $config->static), $handler, $config->staticDotfiles);
        }
        $this->context = new ServerContext($config, $handler, $logger, $this->metrics, $scriptFilename);
        $this->budget = new RequestBudget();
    }

    /**
     * Binds and listens on $listen (HOST:PORT or unix:/path).
     *
     * @return resource
     * @throws ServerStartException
     */
    public static function listen(string $listen, int $backlog = 1024)
    {
        $address = ListenAddress::parse($listen);
        if ($address->unixPath !== null) {
            self::removeStaleUnixSocket($address->unixPath);
        }
        $context = \stream_context_create(['socket' => ['backlog' => $backlog, 'so_reuseaddr' => true]]);
        $errorCode = 0;
        $errorMessage = '';
        $socket = @\stream_socket_server(
            $address->toStreamAddress(),
            $errorCode,
            $errorMessage,
            \STREAM_SERVER_BIND | \STREAM_SERVER_LISTEN,
            $context,
        );
        if ($socket === false) {
            throw new ServerStartException(\sprintf('Cannot listen on %s: %s', $listen, $errorMessage !== '' ? $errorMessage : 'unknown error'));
        }

        return $socket;
    }

    /** @throws ServerStartException */
    public function start(): void
    {
        if ($this->acceptWatcher !== null || $this->stopping) {
            throw new \LogicException('The server was already started');
        }
        $this->listener ??= self::listen($this->config->listen, $this->config->backlog);
        // No class is loaded ahead for the day the descriptors run out: the reserve gives one up
        // while any class autoloads (DescriptorExhaustionTest), so a hello server loads and keeps
        // in opcache only what it runs.
        AutoloadReserve::install(); // before ConnectionLimit counts the descriptors open
        $this->connections->limit = ConnectionLimit::inForce($this->config->maxConnections, $this->logger);
        Classic\OutputCapture::install();
        if (!Classic\HeaderCapture::enable()) {
            $this->logger->notice('FFI is not available: header() and setcookie() in application code are dropped, as PHP\'s CLI drops them');
        }
        \stream_set_blocking($this->listener, false);
        $name = (string) \stream_socket_get_name($this->listener, false);
        $meta = \stream_get_meta_data($this->listener);
        if (\str_starts_with($meta['stream_type'], 'unix') || ($name !== '' && $name[0] === '/')) {
            $this->address = 'unix:' . $name;
            $this->localHost = 'localhost';
        } else {
            $colon = (int) \strrpos($name, ':');
            $this->localHost = \substr($name, 0, $colon);
            $this->localPort = (int) \substr($name, $colon + 1);
            $this->address = \str_contains($this->localHost, ':') ? '[' . $this->localHost . ']:' . $this->localPort : $name;
        }
        $this->tls = TlsTermination::fromConfig($this->config);
        $this->tls?->applyTo($this->listener);
        $this->acceptWatcher = new StreamWatcher($this->listener);
        Async::run($this->acceptLoop(...))->ignore();
        $this->sweeper = Timer::every($this->config->sweepInterval(), fn () => $this->connections->sweep(\microtime(true)))->unreference();
        if ($this->context->accessLog?->path() !== '' && $this->context->accessLog !== null && \defined('SIGUSR1')) {
            $this->reopenSignal = Signals::on(\SIGUSR1, $this->reopenAccessLog(...));
        }
    }

    /** SIGUSR1 (logrotate's postrotate; the master forwards it to every worker): a new file at --access-log-file. */
    private function reopenAccessLog(): void
    {
        $log = $this->context->accessLog;
        try {
            $log?->reopen();
            $this->logger->info('Access log reopened: {path}', ['path' => $log?->path()]);
        } catch (\RuntimeException $error) {
            $this->logger->error('Access log not reopened, lines go on to the old file: {error}', ['error' => $error->getMessage()]);
        }
    }

    /** Where the server listens, e.g. "127.0.0.1:43127" (the real port when 0 was asked for) or "unix:/path". */
    public function address(): string
    {
        return $this->address;
    }

    public function isStopping(): bool
    {
        return $this->stopping;
    }

    public function connectionCount(): int
    {
        return $this->connections->count();
    }

    /** The connection limit in force (known once started): --max-connections, or what descriptors allow. */
    public function connectionLimit(): int
    {
        return $this->connections->limit;
    }

    /** Connections accepted and dropped since start, and how often the limit was met. */
    public function statistics(): ConnectionStatistics
    {
        return $this->connections->statistics;
    }

    /** The server's figures, for a metrics registry (Metrics\Registry::add()). */
    public function metrics(): ServerMetrics
    {
        return $this->metrics;
    }

    /** Requests started since the server started. */
    public function requestsServed(): int
    {
        return $this->budget->started();
    }

    /**
     * Graceful stop: accept nothing more, close idle connections, let requests in flight finish
     * (their responses say `Connection: close`) and force-close whatever is left after
     * $drainDeadline seconds. The future completes once every connection is closed.
     *
     * The listening socket is closed at once (this process's copy of it, when a master shares
     * it), so that new clients are refused rather than queued and reset later.
     *
     * With $idleGrace > 0 idle keep-alive connections (and accepted ones whose first request has
     * not been read yet) stay open for up to that many seconds: a request arriving meanwhile is
     * answered with `Connection: close` instead of meeting a close the client could not expect.
     *
     * @return Future<null>
     */
    public function stop(?float $drainDeadline = null, float $idleGrace = 0.0): Future
    {
        if ($this->stopping) {
            return $this->stopped->future();
        }
        $this->stopping = true;
        $connections = $this->connections;
        $connections->stopping = true;
        $connections->idleGraceUntil = $idleGrace > 0.0 ? \microtime(true) + $idleGrace : 0.0;
        $this->acceptWatcher?->close();
        $this->wakeAcceptLoop();
        if ($this->listener !== null) {
            @\fclose($this->listener);
            if ($this->ownsListener && \str_starts_with($this->address, 'unix:')) {
                @\unlink(\substr($this->address, 5));
            }
        }
        $this->listener = null;
        $connections->stopUpgraded(); // a WebSocket closes with 1001 and its closure's receive() ends
        foreach ($connections->all() as $connection) {
            if ($connection->phase === ConnectionPhase::Closing) {
                $connection->close();
            } elseif ($connection->phase === ConnectionPhase::Idle) {
                if ($connections->idleGraceUntil > 0.0) {
                    // The sweeper closes it when the grace ends, unless a request arrives first.
                    $connection->deadline = \min($connection->deadline, $connections->idleGraceUntil);
                } elseif ($connection->hasRequestOnItsWay()) {
                    // Bytes no fiber has read yet: the request is served, with `Connection: close`.
                } elseif ($connection->requests === 0) {
                    // Accepted, its first request not here yet: a client connects to send one,
                    // usually within a millisecond. Closed if it has not come within the grace.
                    $connection->deadline = \min($connection->deadline, \microtime(true) + self::FIRST_REQUEST_GRACE_SECONDS);
                } else {
                    $connection->close();
                }
            }
        }
        $this->drainTimer = Timer::after($drainDeadline ?? $this->config->drainTimeout, function (): void {
            if ($this->connections->count() > 0) {
                $this->logger->warning('Drain deadline passed; closing {count} connection(s)', ['count' => $this->connections->count()]);
            }
            foreach ($this->connections->all() as $connection) {
                $connection->close();
            }
        });
        $this->finishStopIfDrained();

        return $this->stopped->future();
    }

    /** Stops at once: like stop() with no drain time, closing requests still in flight. */
    public function abort(): void
    {
        $this->stop(0.0);
        foreach ($this->connections->all() as $connection) {
            $connection->close();
        }
    }

    /**
     * Completes once a stop has finished.
     *
     * @return Future<null>
     */
    public function stopped(): Future
    {
        return $this->stopped->future();
    }

    /**
     * The request whose code runs in $fiber (a connection's fiber), or ran last when the fiber
     * has finished it and waits for the next; null for any other fiber. A search over the
     * connections: for reports, not per request.
     */
    public function requestRunningIn(object $fiber): ?RunningRequest
    {
        // Connections served one after another by the loop's callback fiber all name it: the
        // one in a request there, else the one that finished last.
        $found = null;
        $foundAt = -\INF;
        foreach ($this->connections->all() as $connection) {
            $request = $connection->requestRunningIn($fiber);
            $at = $connection->phase === ConnectionPhase::Idle ? $connection->doneAt : \INF;
            if ($request !== null && $at > $foundAt) {
                $found = $request;
                $foundAt = $at;
            }
        }

        return $found;
    }

    /** Requests being read, handled or answered right now. */
    public function inFlightCount(): int
    {
        $count = 0;
        foreach ($this->connections->all() as $connection) {
            $phase = $connection->phase;
            if ($phase === ConnectionPhase::ReadingBody || $phase === ConnectionPhase::Handling || $phase === ConnectionPhase::Writing || $phase === ConnectionPhase::Streaming) {
                $count++;
            }
        }

        return $count;
    }

    /**
     * Calls $onReached once, when the server starts handling its $requests-th request (counted
     * from its start). The worker of a master process uses it to retire after --max-requests.
     *
     * @param Closure(): void $onReached
     */
    public function setRequestLimit(int $requests, Closure $onReached): void
    {
        $this->budget->limitTo($requests, $onReached);
    }

    /**
     * For a shutdown function of the process serving: when the process ends while requests are
     * in the application's hands (exit() or die in a handler, a fatal error such as an exhausted
     * memory_limit), the log names them and their clients get an answer (500 for the request
     * whose code ended the process, 503 for the others) instead of a connection that just drops
     * (AbruptEnd). After a normal stop there are none, and nothing is logged.
     */
    public function reportAbruptEnd(): void
    {
        (new AbruptEnd($this->context))->report($this->connections->all());
    }

    /** The server's accepting fiber: waits for pending connections, making room at the limit. */
    private function acceptLoop(): void
    {
        $watcher = $this->acceptWatcher;
        if ($watcher === null) {
            return;
        }
        try {
            while (!$this->stopping) {
                $watcher->awaitReadable();
                if (!$this->acceptPending()) {
                    $this->awaitRoom();
                }
            }
        } catch (StreamClosedException) {
            // stop() closed the listener.
        }
    }

    /**
     * Accepts the connections waiting in the listen queue (a bounded batch per wake-up).
     *
     * @return bool false when the server is full and no connection could make room
     */
    private function acceptPending(): bool
    {
        $connections = $this->connections;
        for ($i = 0; $i < self::ACCEPTS_PER_WAKE && !$this->stopping; $i++) {
            $listener = $this->listener;
            if ($listener === null) {
                return true;
            }
            if ($connections->isFull() || !$this->memory->allowsMore()) {
                // Room is made only for a client known to wait: the one that woke us. Later in
                // the batch nobody may be waiting; the next wake-up tells.
                if ($i > 0) {
                    return true;
                }
                if (!$connections->makeRoom(\microtime(true))) {
                    return false;
                }
            }
            $socket = @\stream_socket_accept($listener, 0, $peer);
            if ($socket === false) {
                $error = \error_get_last()['message'] ?? '';
                if (\str_contains($error, 'Too many open files') || \str_contains($error, 'file table overflow')) {
                    // Out of descriptors: pause instead of spinning on a listener that stays readable.
                    \error_clear_last();
                    $now = \microtime(true);
                    if ($now - $this->lastDescriptorWarning > 10.0) {
                        $this->lastDescriptorWarning = $now;
                        $this->logger->warning('Out of file descriptors; accepting pauses until some are free');
                    }
                    Async::delay(self::ACCEPT_BACKOFF_SECONDS);
                }

                return true;
            }
            $this->open($socket, (string) $peer);
        }

        return true;
    }

    /** Full, nothing to close: waits until a connection closes, or a while, then looks again. */
    private function awaitRoom(): void
    {
        $this->room = new DeferredFuture();
        try {
            $this->room->future()->await(new TimeoutCancellation(self::FULL_RECHECK_SECONDS));
        } catch (CancelledException) {
            // Time to look again: a slow client may have become one that can be closed.
        }
        $this->room = null;
    }

    private function wakeAcceptLoop(): void
    {
        $room = $this->room;
        if ($room !== null) {
            $this->room = null;
            $room->complete();
        }
        if ($this->stopping) {
            $this->finishStopIfDrained();
        }
    }

    /** @param resource $socket */
    private function open($socket, string $peer): void
    {
        \stream_set_blocking($socket, false);
        \stream_set_read_buffer($socket, 0);
        \stream_set_write_buffer($socket, 0);
        if ($this->localPort !== 0) {
            // Without it every keep-alive response waits ~40 ms for a delayed ACK (Nagle).
            $raw = \socket_import_stream($socket);
            if ($raw !== false) {
                @\socket_set_option($raw, \SOL_TCP, \TCP_NODELAY, 1);
            }
            $colon = (int) \strrpos($peer, ':');
            $remoteAddress = \trim(\substr($peer, 0, $colon), '[]');
            $remotePort = (int) \substr($peer, $colon + 1);
        } else {
            $remoteAddress = '';
            $remotePort = 0;
        }
        $this->listenerParams ??= [
            'SERVER_ADDR' => $this->localHost,
            'SERVER_PORT' => (string) $this->localPort,
            'SERVER_SOFTWARE' => $this->config->serverHeader,
            ...($this->tls !== null ? ['HTTPS' => 'on', 'REQUEST_SCHEME' => 'https'] : []),
            ...$this->context->scriptParams,
        ];
        $origin = new ConnectionOrigin(
            $remoteAddress,
            (string) $remotePort,
            $this->listenerParams,
            $this->localPort === 0 ? 'localhost' : $this->address,
            $remoteAddress !== '' && $this->context->trustedProxies->contains($remoteAddress),
        );
        if ($this->tls !== null) {
            $this->tls->acceptThen($socket, fn () => $this->serve($socket, $origin, true));

            return;
        }
        $this->serve($socket, $origin, false);
    }

    /** @param resource $socket */
    private function serve($socket, ConnectionOrigin $origin, bool $encrypted): void
    {
        if ($this->stopping) {
            \fclose($socket); // handshaken after the stop began
            $this->finishStopIfDrained();

            return;
        }
        $connection = new Connection($this->context, $this->connections, $this->budget, $socket, $origin, $encrypted);
        $this->connections->add($connection);
        $connection->start();
    }

    private function finishStopIfDrained(): void
    {
        if ($this->connections->count() > 0 || $this->stopped->isComplete()) {
            return;
        }
        $this->sweeper?->cancel();
        $this->drainTimer?->cancel();
        if ($this->reopenSignal !== null) {
            Signals::off($this->reopenSignal);
            $this->reopenSignal = null;
        }
        if ($this->acceptWatcher !== null) {
            Classic\OutputCapture::release();
        }
        $this->stopped->complete();
    }

    private static function removeStaleUnixSocket(string $path): void
    {
        if (!\file_exists($path) || \filetype($path) !== 'socket') {
            return;
        }
        $probe = @\stream_socket_client('unix://' . $path, $code, $message, 0.2);
        if ($probe !== false) {
            \fclose($probe);

            return; // Someone is serving there; binding will fail with a clear message.
        }
        @\unlink($path);
    }
}
