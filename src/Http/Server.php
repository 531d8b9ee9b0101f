<?php

declare(strict_types=1);

namespace Bobbin\Http;

use Bobbin\Async\Async;
use Bobbin\Async\StreamClosedException;
use Bobbin\Async\StreamWatcher;
use Bobbin\Async\DeferredFuture;
use Bobbin\Async\Future;
use Bobbin\Async\Timer;
use Closure;
use Psr\Http\Server\RequestHandlerInterface;
use Psr\Log\LoggerInterface;

/**
 * One HTTP/1.1 server on the current event loop: accepts connections on one listening socket
 * and serves each in its own fiber. A worker process runs one; the master may bind the socket
 * itself (Server::listen()) and hand it to each worker.
 */
final class Server
{
    private const ACCEPTS_PER_WAKE = 32;
    private const ACCEPT_BACKOFF_SECONDS = 0.1;
    /**
     * Classes loaded at start: autoloading needs a free file descriptor, and the first time
     * one of these is needed may be exactly when the process has none left.
     */
    private const PRELOAD = [
        Connection::class, ConnectionPhase::class, RequestParser::class, RequestHead::class, ProtocolError::class,
        WriteFailed::class, HttpDate::class, StatusReason::class,
        Message\ServerRequest::class, Message\Response::class, Message\StringStream::class, Message\HeaderRules::class,
        Message\Uri::class,
        // nyholm's Uri, Stream and Response for applications that use them.
        \Nyholm\Psr7\Uri::class, \Nyholm\Psr7\Stream::class, \Nyholm\Psr7\Response::class,
    ];
    /** File descriptors left for the application (files, database connections) below the limit. */
    private const RESERVED_DESCRIPTORS = 64;

    /** @internal read by Connection */
    public readonly string $serverHeaderLine;

    /** @var resource|null */
    private $listener;
    private readonly bool $ownsListener;
    private ?StreamWatcher $acceptWatcher = null;
    /** Completed when a connection closes while accepting waits below --max-connections. @var DeferredFuture<null>|null */
    private ?DeferredFuture $capacity = null;
    private ?Timer $sweeper = null;
    private ?Timer $drainTimer = null;
    /** @var array<int, Connection> */
    private array $connections = [];
    private bool $stopping = false;
    /** @var DeferredFuture<null> */
    private readonly DeferredFuture $stopped;
    private string $address = '';
    private int $maxConnections;
    private float $lastDescriptorWarning = 0.0;
    private string $localHost = '';
    private int $localPort = 0;
    /** During a stop: the latest moment an idle keep-alive connection stays open (0: close idle ones at once). */
    private float $idleGraceUntil = 0.0;
    /** @var (Closure(): void)|null */
    private ?Closure $onRequestLimit = null;

    /** @internal incremented by Connection for every request it starts handling */
    public int $requestsServed = 0;
    /** @internal Connection calls requestLimitReached() when requestsServed reaches it (see setRequestLimit()) */
    public int $requestLimit = \PHP_INT_MAX;

    /**
     * @param resource|null $listener an already bound, listening server socket (from listen());
     *                                null makes start() bind $config->listen itself
     */
    public function __construct(
        public readonly ServerConfig $config,
        public readonly RequestHandlerInterface $handler,
        public readonly LoggerInterface $logger,
        $listener = null,
    ) {
        $this->listener = $listener;
        $this->ownsListener = $listener === null;
        $this->serverHeaderLine = $config->serverHeader === '' ? '' : 'Server: ' . $config->serverHeader . "\r\n";
        $this->stopped = new DeferredFuture();
        $this->maxConnections = $config->maxConnections;
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
        foreach ([...self::PRELOAD, ...Async::runtimeClasses()] as $class) {
            \class_exists($class); // enums are classes too: this loads every entry
        }
        $this->maxConnections = $this->connectionsTheDescriptorLimitAllows();
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
        $this->acceptWatcher = new StreamWatcher($this->listener);
        Async::run($this->acceptLoop(...))->ignore();
        $this->sweeper = Timer::every($this->config->sweepInterval(), fn () => $this->sweep())->unreference();
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
        return \count($this->connections);
    }

    /**
     * Graceful stop: accept nothing more, close idle connections, let requests in flight finish
     * (their responses say `Connection: close`) and force-close whatever is left after
     * $drainDeadline seconds. The future completes once every connection is closed.
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
        $this->idleGraceUntil = $idleGrace > 0.0 ? \microtime(true) + $idleGrace : 0.0;
        $this->acceptWatcher?->close();
        $this->wakeAcceptLoop();
        if ($this->listener !== null && $this->ownsListener) {
            @\fclose($this->listener);
            if (\str_starts_with($this->address, 'unix:')) {
                @\unlink(\substr($this->address, 5));
            }
        }
        $this->listener = null;
        foreach ($this->connections as $connection) {
            if ($connection->phase === ConnectionPhase::Closing) {
                $connection->close();
            } elseif ($connection->phase === ConnectionPhase::Idle) {
                if ($this->idleGraceUntil > 0.0) {
                    // The sweeper closes it when the grace ends, unless a request arrives first.
                    $connection->deadline = \min($connection->deadline, $this->idleGraceUntil);
                } else {
                    $connection->close();
                }
            }
        }
        $this->drainTimer = Timer::after($drainDeadline ?? $this->config->drainTimeout, function (): void {
            if ($this->connections !== []) {
                $this->logger->warning('Drain deadline passed; closing {count} connection(s)', ['count' => \count($this->connections)]);
            }
            foreach ($this->connections as $connection) {
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
        foreach ($this->connections as $connection) {
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
     * During a graceful stop with an idle grace: until when an idle connection may wait for its
     * next request (0.0 when idle connections are closed at once, or no stop is under way).
     *
     * @internal read by Connection
     */
    public function idleGraceUntil(): float
    {
        return $this->idleGraceUntil;
    }

    /** Requests being read, handled or answered right now. */
    public function inFlightCount(): int
    {
        $count = 0;
        foreach ($this->connections as $connection) {
            $phase = $connection->phase;
            if ($phase === ConnectionPhase::ReadingBody || $phase === ConnectionPhase::Handling || $phase === ConnectionPhase::Writing) {
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
        $this->requestLimit = \max(1, $requests);
        $this->onRequestLimit = $onReached;
        if ($this->requestsServed >= $this->requestLimit) {
            $this->requestLimitReached();
        }
    }

    /** @internal called by Connection when requestsServed reaches the limit */
    public function requestLimitReached(): void
    {
        $callback = $this->onRequestLimit;
        $this->onRequestLimit = null;
        $this->requestLimit = \PHP_INT_MAX;
        if ($callback !== null) {
            $callback();
        }
    }

    /** @internal called by Connection::close() */
    public function connectionClosed(Connection $connection): void
    {
        unset($this->connections[\spl_object_id($connection)]);
        if ($this->stopping) {
            $this->finishStopIfDrained();
        } else {
            $this->wakeAcceptLoop();
        }
    }

    /** The server's accepting fiber: waits for pending connections, or for room below the limit. */
    private function acceptLoop(): void
    {
        $watcher = $this->acceptWatcher;
        if ($watcher === null) {
            return;
        }
        try {
            while (!$this->stopping) {
                if (\count($this->connections) >= $this->maxConnections) {
                    // Leave further clients in the listen queue until a connection closes.
                    $this->capacity = new DeferredFuture();
                    $this->capacity->future()->await();
                    continue;
                }
                $watcher->awaitReadable();
                $this->acceptPending();
            }
        } catch (StreamClosedException) {
            // stop() closed the listener.
        }
    }

    /** Accepts the connections waiting in the listen queue (a bounded batch per wake-up). */
    private function acceptPending(): void
    {
        for ($i = 0; $i < self::ACCEPTS_PER_WAKE && !$this->stopping; $i++) {
            $listener = $this->listener;
            if ($listener === null) {
                return;
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

                return;
            }
            $this->open($socket, (string) $peer);
            if (\count($this->connections) >= $this->maxConnections) {
                return;
            }
        }
    }

    private function wakeAcceptLoop(): void
    {
        $capacity = $this->capacity;
        if ($capacity !== null && ($this->stopping || \count($this->connections) < $this->maxConnections)) {
            $this->capacity = null;
            $capacity->complete();
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
        $params = [
            'REMOTE_ADDR' => $remoteAddress,
            'REMOTE_PORT' => $remotePort,
            'SERVER_ADDR' => $this->localHost,
            'SERVER_PORT' => $this->localPort,
            'SERVER_SOFTWARE' => $this->config->serverHeader,
        ];
        $authority = $this->localPort === 0 ? 'localhost' : $this->address;
        $connection = new Connection($this, $socket, $params, $authority);
        $this->connections[\spl_object_id($connection)] = $connection;
        Async::run($connection->run(...))->ignore();
    }

    private function sweep(): void
    {
        $now = \microtime(true);
        foreach ($this->connections as $connection) {
            if ($connection->deadline < $now) {
                $connection->expire();
            }
        }
    }

    private function finishStopIfDrained(): void
    {
        if ($this->connections !== [] || $this->stopped->isComplete()) {
            return;
        }
        $this->sweeper?->cancel();
        $this->drainTimer?->cancel();
        $this->stopped->complete();
    }

    /**
     * --max-connections, lowered if the process's descriptor limit could not hold that many
     * connections plus a reserve, so the limit is met by not accepting rather than by failing.
     * On Bobbin's stream_select() driver the limit is also what select() can watch (1,024).
     */
    private function connectionsTheDescriptorLimitAllows(): int
    {
        $limits = \function_exists('posix_getrlimit') ? \posix_getrlimit() : false;
        $soft = \is_array($limits) ? ($limits['soft openfiles'] ?? 'unlimited') : 'unlimited';
        $ceiling = Async::descriptorCeiling();
        if ($ceiling !== null) {
            $soft = \is_numeric($soft) ? \min((int) $soft, $ceiling) : $ceiling;
        }
        if (!\is_numeric($soft)) {
            return $this->config->maxConnections;
        }
        $open = \is_dir('/proc/self/fd') ? \count((array) \scandir('/proc/self/fd')) - 2 : 16;
        $reserve = \max(4, \min(self::RESERVED_DESCRIPTORS, \intdiv((int) $soft, 8)));
        $allowed = \max(1, (int) $soft - $open - $reserve);
        if ($allowed >= $this->config->maxConnections) {
            return $this->config->maxConnections;
        }
        $this->logger->notice('The open-files limit ({limit}) allows only {allowed} connections; --max-connections lowered from {max}', [
            'limit' => $soft, 'allowed' => $allowed, 'max' => $this->config->maxConnections,
        ]);

        return $allowed;
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
