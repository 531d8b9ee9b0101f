<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Internal;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Bobbin\Async\CancelledOutcomeUnknownException;
use Bobbin\Async\CompositeCancellation;
use Bobbin\Async\ConnectFailedException;
use Bobbin\Async\ConnectTarget;
use Bobbin\Async\EndOfTurnWriter;
use Bobbin\Async\IdleSocketPeek;
use Bobbin\Async\OwnsResources;
use Bobbin\Async\ReplySource;
use Bobbin\Async\SharedReader;
use Bobbin\Async\SocketConnector;
use Bobbin\Async\StreamClosedException;
use Bobbin\Async\StreamWatcher;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Async\TimeoutException;
use Bobbin\MessagePack\Decoder;
use Bobbin\Tarantool\ConnectionConfig;
use Bobbin\Tarantool\Exception\AccessDeniedException;
use Bobbin\Tarantool\Exception\ConnectException;
use Bobbin\Tarantool\Exception\ConnectionLostException;
use Bobbin\Tarantool\Exception\ConnectTimeoutException;
use Bobbin\Tarantool\Exception\ProtocolException;
use Bobbin\Tarantool\Exception\ServerNotReadyException;
use Bobbin\Tarantool\Exception\TarantoolException;
use Closure;

/**
 * One socket to Tarantool shared by any number of fibers: every request goes out tagged with
 * its own sync id, and answers are matched to their fibers by that id, in whatever order they
 * come.
 *
 * Nobody owns the reading: the first fiber that needs an answer while nobody reads becomes the
 * reader. It reads whole batches, hands each answer to its fiber (resumed right there, one after
 * another), and once its own answer is in, passes the reading on to the fiber waiting longest
 * (Async\SharedReader, as in Redis and IPC). One request at a time costs no fiber switch at all;
 * a crowd costs one read per batch. Requests made while somebody reads go out together in one
 * write at the end of the loop tick.
 *
 * A request whose caller stopped waiting (cancellation, timeout) is forgotten: its late answer
 * is dropped, never handed to another fiber. A broken socket fails every waiting request.
 *
 * Over 400 lines: the pipelined session's reader, writer, reply routing and breakage are one
 * state machine over one socket.
 *
 * @internal
 */
final class Session implements ReplySource
{
    use OwnsResources;

    private const READ_CHUNK = 262_144;
    /**
     * The first read after a short one asks for less: PHP allocates the whole chunk before the
     * read and shrinks it after, and 2 KB (with the string's header) still comes from the small
     * allocator, where 256 KB takes pages (~600 instructions more for a one-request answer). A
     * read that fills it is followed by full-size ones.
     */
    private const SMALL_READ = 2048;
    /**
     * Seconds for which a read that emptied the socket stands in for the idle peek, as a quiet
     * poll does in IdleSocketPeek (the same bound): one request after another in a plain script
     * makes no recv(MSG_PEEK) between them.
     */
    private const TRUST_EMPTIED_READ_FOR = 0.001;

    private readonly StreamWatcher $watcher;
    private readonly FrameParser $parser;
    private readonly SharedReader $reader;
    /** Whether the server closed the socket while it sat idle (a restart): asked before each request. */
    private readonly IdleSocketPeek $peek;
    /** Reads a cancelled SQL request's text (CancelledRequest::mayWrite()). */
    private readonly Decoder $decoder;
    public readonly RequestEncoder $encoder;
    public readonly float $openedAt;
    // Written for every request: untyped (@var), because PHP 8.2's JIT writes a typed property
    // through a checking helper (~60 instructions a write; bench/tarantool/reference.php).
    /** @var float */
    public $lastUsedAt;
    /** @var int the schema version of the server's last answer */
    public $schemaVersion = 0;
    public ?Greeting $greeting = null;
    /** Requests asked while somebody reads leave together at the end of the loop turn. */
    private readonly EndOfTurnWriter $writer;
    /**
     * @var float when the last read that emptied the socket was at the latest (the send time of
     *      the newest request then: no clock read per read); 0.0 after a read that filled its chunk
     */
    private $emptiedAt = 0.0;
    /** @var int<1, max> what the next read asks for (SMALL_READ after a short read, else READ_CHUNK) */
    private $readSize = self::SMALL_READ;
    /** @var int */
    private $nextSync = 0;
    /** @var array<int, true> requests sent whose caller still wants the answer */
    private $pending = [];
    /** @var array<int, Closure(mixed): void> */
    private array $pushHandlers = [];
    /** @var array<int, \Throwable> */
    private array $pushErrors = [];
    private ?TarantoolException $broken = null;

    /** @param resource $stream */
    private function __construct(private readonly mixed $stream, private readonly ConnectionConfig $config, Decoder $decoder, RequestEncoder $encoder)
    {
        $this->watcher = new StreamWatcher($stream);
        $this->parser = new FrameParser($decoder);
        $this->decoder = $decoder;
        $this->reader = new SharedReader();
        $this->peek = new IdleSocketPeek($stream);
        $this->writer = new EndOfTurnWriter($this->brokeWhileSending(...));
        $this->writer->attach($stream, $this->watcher);
        $this->encoder = $encoder;
        $this->openedAt = $this->lastUsedAt = \microtime(true);
    }

    public function __destruct()
    {
        $this->close('The connection was closed');
    }

    /**
     * Connects, reads the greeting and authenticates (chap-sha1) unless the user is guest, all
     * within the config's connectTimeout.
     *
     * @throws ConnectException|ConnectTimeoutException|AccessDeniedException|\Bobbin\Async\CancelledException
     */
    public static function open(ConnectionConfig $config, Decoder $decoder, RequestEncoder $encoder, ?Cancellation $cancellation): self
    {
        $cancellation?->throwIfRequested();
        $timeout = new TimeoutCancellation($config->connectTimeout, 'connect timeout');
        $bound = $cancellation === null ? $timeout : new CompositeCancellation($cancellation, $timeout);
        try {
            $stream = self::socket($config, $bound);
        } catch (TimeoutException $e) {
            $timeout->dispose();
            throw self::connectTimeout($e, $config, $cancellation);
        }
        $session = new self($stream, $config, $decoder, $encoder);
        try {
            $session->greeting = Greeting::parse($session->readGreeting($bound));
            if ($config->user !== 'guest' || $config->password !== '') {
                $session->authenticate($bound);
            }

            return $session;
        } catch (TimeoutException $e) {
            $session->close('The connect timed out');
            throw self::connectTimeout($e, $config, $cancellation);
        } catch (ConnectionLostException|ProtocolException $e) {
            $session->close('The connect failed');
            throw new ConnectException(\sprintf('Cannot connect to Tarantool (%s): %s', $config->describe(), $e->getMessage()), 0, null, $e);
        } catch (\Throwable $e) {
            $session->close('The connect failed');
            throw $e;
        } finally {
            $timeout->dispose();
        }
    }

    private static function connectTimeout(TimeoutException $e, ConnectionConfig $config, ?Cancellation $cancellation): \Throwable
    {
        if ($cancellation !== null && $cancellation->isRequested()) {
            return $e;
        }

        return new ConnectTimeoutException(\sprintf('Connecting to Tarantool (%s) took longer than %.3f s', $config->describe(), $config->connectTimeout));
    }

    /**
     * Sends one request and waits for its answer (an error answer too: the caller maps it).
     * Pushes (IPROTO_CHUNK) before the answer go to $onPush.
     *
     * @param (Closure(mixed): void)|null $onPush
     * @throws ConnectionLostException|ProtocolException|\Bobbin\Async\CancelledException
     */
    public function request(int $type, string $body, ?Cancellation $cancellation = null, int $schemaVersion = 0, ?Closure $onPush = null, int $streamId = 0): Response
    {
        if ($this->broken !== null) {
            throw $this->lost();
        }
        $cancellation?->throwIfRequested();
        $sync = ++$this->nextSync;
        $this->lastUsedAt = \microtime(true);
        $this->pending[$sync] = true;
        if ($onPush !== null) {
            $this->pushHandlers[$sync] = $onPush;
        }
        // Catch and rethrow, not finally: a finally block keeps the tracing JIT off this path.
        $frame = $this->encoder->frame($type, $sync, $body, $schemaVersion, $streamId);
        try {
            // Others wait too (somebody reads): everything asked during this turn goes out in one write after it.
            $this->writer->write($frame, $this->reader->isReading());
            /** @var Response $response */
            $response = $this->reader->await($sync, $cancellation, $this);
        } catch (CancelledException $e) {
            $response = $this->settle($sync, $type, $body, $frame, $e);
        } catch (\Throwable $e) {
            $this->forget($sync);
            throw $e;
        }
        $this->forget($sync);
        if (isset($this->pushErrors[$sync])) {
            $error = $this->pushErrors[$sync];
            unset($this->pushErrors[$sync]);
            throw $error;
        }
        if ($response->malformed !== null) {
            throw new ProtocolException('The server sent an answer whose body is not MessagePack: ' . $response->malformed);
        }

        return $response;
    }

    /**
     * The caller gave up on its request. Still in the outgoing buffer (queued behind others in
     * this turn; its sync id in the header makes the frame unique there): taken out, never sent,
     * the plain cancellation (the contract suite). Sent, it runs on (IPROTO cannot stop it): a
     * read changed nothing, the plain cancellation at once; anything that may write waits up to
     * CancelledRequest::SETTLE_SECONDS for its answer, returned as if never cancelled (done, or
     * the server's error: not done), or CancelledOutcomeUnknownException when none came (its late
     * answer is dropped when it comes).
     *
     * @throws CancelledException|ConnectionLostException|ProtocolException
     */
    private function settle(int $sync, int $type, string $body, string $frame, CancelledException $cancelled): Response
    {
        if ($this->writer->withdraw($frame) || !CancelledRequest::mayWrite($type, $body, $this->decoder)) {
            $this->forget($sync);
            throw $cancelled;
        }
        $settle = new TimeoutCancellation(CancelledRequest::SETTLE_SECONDS);
        try {
            /** @var Response */
            return $this->reader->await($sync, $settle, $this);
        } catch (CancelledException) {
            $this->forget($sync);
            throw new CancelledOutcomeUnknownException($cancelled);
        } catch (\Throwable $e) {
            $this->forget($sync);
            throw $e;
        } finally {
            $settle->dispose();
        }
    }

    private function forget(int $sync): void
    {
        unset($this->pending[$sync], $this->pushHandlers[$sync]);
        if (\count($this->pending) === 0) {
            $this->peek->markIdle();
        }
    }

    public function isOpen(): bool
    {
        return $this->broken === null;
    }

    /** Requests sent and not answered yet. */
    public function inFlight(): int
    {
        return \count($this->pending);
    }

    /**
     * Without a round trip: false when the socket is broken, or when the server said something
     * while nothing was asked (an idle Tarantool session is silent; the end of the stream after
     * a restart is not). One peek at the socket (Async\IdleSocketPeek: none on epoll when a poll
     * found it quiet under 1 ms ago, nor when a read emptied it under 1 ms ago), asked before
     * every request on an idle session. A server that closes the socket within that moment shows
     * as a lost connection on the next request, as one that closes it just after the peek does.
     */
    public function isAlive(): bool
    {
        if ($this->broken !== null) {
            return false;
        }
        if (\count($this->pending) === 0 && !$this->reader->isReading() && \microtime(true) - $this->emptiedAt >= self::TRUST_EMPTIED_READ_FOR && $this->peek->firstByte() !== null) {
            $bytes = @\fread($this->stream, self::READ_CHUNK);
            if ($bytes === false || $bytes === '' || \feof($this->stream)) {
                $this->fail(new ConnectionLostException('The server closed the connection while it was idle'));

                return false;
            }
            $this->parser->append($bytes); // not ours to judge here: the next reader sees it
        }

        return true;
    }

    /** Closes the socket; every waiting request gets a ConnectionLostException with $reason. */
    public function close(string $reason): void
    {
        $this->fail(new ConnectionLostException($reason));
    }

    private function authenticate(Cancellation $cancellation): void
    {
        \assert($this->greeting !== null);
        $response = $this->request(Iproto::AUTH, $this->encoder->auth($this->config->user, ChapSha1::scramble($this->config->password, $this->greeting->salt)), $cancellation);
        if ($response->isError()) {
            $error = ErrorFactory::fromResponse($response, 'authentication');
            if ($error->getCode() === Iproto::ER_LOADING) {
                throw new ServerNotReadyException(\sprintf('Tarantool (%s) is still starting and refused the login for now: %s', $this->config->describe(), $error->getMessage()), $error->getCode(), $error->errorStack(), $error);
            }
            throw new AccessDeniedException(\sprintf('Tarantool (%s) refused the login: %s', $this->config->describe(), $error->getMessage()), $error->getCode(), $error->errorStack(), $error);
        }
    }

    /** @return resource */
    private static function socket(ConnectionConfig $config, Cancellation $cancellation): mixed
    {
        $target = $config->unixSocket !== null ? ConnectTarget::unix($config->unixSocket) : ConnectTarget::tcp($config->host, $config->port);
        try {
            // No deadline of its own: $cancellation carries the connect timeout.
            return (new SocketConnector())->connect($target, \INF, $cancellation);
        } catch (ConnectFailedException $e) {
            throw new ConnectException(\sprintf('Cannot connect to Tarantool (%s): %s', $config->describe(), $e->getMessage()), 0, null, $e);
        }
    }

    private function readGreeting(Cancellation $cancellation): string
    {
        $greeting = '';
        while (\strlen($greeting) < Greeting::SIZE) {
            $bytes = @\fread($this->stream, Greeting::SIZE - \strlen($greeting));
            if ($bytes !== false && $bytes !== '') {
                $greeting .= $bytes;
                continue;
            }
            if ($bytes === false || \feof($this->stream)) {
                throw new ConnectionLostException(\sprintf(
                    'the server closed the connection after %d bytes of greeting%s',
                    \strlen($greeting),
                    $greeting === '' ? '' : ': "' . \addcslashes(\substr($greeting, 0, 40), "\0..\37\177..\377") . '"',
                ));
            }
            try {
                $this->watcher->awaitReadable(null, $cancellation);
            } catch (StreamClosedException) {
                throw new ConnectionLostException('the connection was closed during the greeting');
            }
        }

        return $greeting;
    }

    private function brokeWhileSending(?\Throwable $cause): void
    {
        $this->fail(new ConnectionLostException($cause === null ? 'The connection broke while sending' : 'The connection broke while sending: ' . $cause->getMessage()));
    }

    /**
     * @internal the SharedReader's: reads once (first in a reader's turn with nothing buffered:
     * waits first) and hands every whole frame received to its request
     */
    public function readReplies(?Cancellation $cancellation, bool $first): void
    {
        try {
            $this->receive($cancellation, $first && $this->parser->pending() === 0);
            $this->dispatch();
        } catch (ConnectionLostException $e) {
            $this->fail($e);
            throw $this->lost();
        } catch (ProtocolException $e) {
            $this->fail($e);
            throw $e;
        }
    }

    /** Hands every whole frame received to its request (late answers of requests given up are dropped). */
    private function dispatch(): void
    {
        while (($response = $this->parser->next()) !== null) {
            $sync = $response->sync;
            if ($response->schemaVersion !== 0) {
                $this->schemaVersion = $response->schemaVersion;
            }
            if (!isset($this->pending[$sync])) {
                continue; // the late answer of a request its caller gave up: dropped
            }
            if ($response->type === Iproto::CHUNK) {
                $this->push($sync, $response);
                continue;
            }
            $this->reader->deliver($sync, $response);
        }
    }

    private function push(int $sync, Response $response): void
    {
        $handler = $this->pushHandlers[$sync] ?? null;
        if ($handler === null || isset($this->pushErrors[$sync])) {
            return;
        }
        try {
            $handler($response->data()[0] ?? null);
        } catch (\Throwable $e) {
            // The request's caller gets it with the answer; the connection goes on.
            $this->pushErrors[$sync] = $e;
        }
    }

    private function receive(?Cancellation $cancellation, bool $fresh): void
    {
        while (true) {
            if (!$fresh) {
                $bytes = @\fread($this->stream, $this->readSize);
                if ($bytes !== false && $bytes !== '') {
                    $this->parser->append($bytes);
                    // A read short of its size took all there was: the socket was empty then.
                    if (\strlen($bytes) < $this->readSize) {
                        $this->emptiedAt = $this->lastUsedAt;
                        $this->readSize = self::SMALL_READ;
                    } else {
                        $this->emptiedAt = 0.0;
                        $this->readSize = self::READ_CHUNK;
                    }

                    return;
                }
                if ($bytes === false || \feof($this->stream)) {
                    throw new ConnectionLostException($this->parser->pending() > 0
                        ? 'The server closed the connection in the middle of a frame'
                        : 'The server closed the connection');
                }
            }
            // Right after a request nothing can have arrived: wait before the first read.
            $fresh = false;
            if ($cancellation === null && Async::awaitReadableIfIdle($this->stream)) {
                continue; // a plain script with nothing else to do: one blocking wait
            }
            try {
                $this->watcher->awaitReadable(null, $cancellation);
            } catch (StreamClosedException) {
                throw $this->lost();
            }
        }
    }

    private function fail(TarantoolException $error): void
    {
        if ($this->broken !== null) {
            return;
        }
        $this->broken = $error;
        // @phpstan-ignore property.uninitializedReadonly (the writer reports a failure only after the constructor)
        $this->writer->fail($error);
        $this->watcher->close();
        @\fclose($this->stream);
        $this->reader->failAll($this->lost());
    }

    private function lost(): ConnectionLostException
    {
        $reason = $this->broken?->getMessage() ?? 'The connection was closed';

        return new ConnectionLostException(\sprintf('Tarantool (%s): %s', $this->config->describe(), $reason), 0, null, $this->broken);
    }
}
