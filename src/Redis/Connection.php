<?php

declare(strict_types=1);

namespace Bobbin\Redis;

use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Bobbin\Async\CompositeCancellation;
use Bobbin\Async\EndOfTurnWriter;
use Bobbin\Async\OwnsResources;
use Bobbin\Async\ReplySource;
use Bobbin\Async\SharedReader;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Async\Timer;
use Bobbin\Redis\Exception\CommandTimeoutException;
use Bobbin\Redis\Exception\ConnectException;
use Bobbin\Redis\Exception\ConnectionLostException;
use Bobbin\Redis\Exception\ConnectTimeoutException;
use Bobbin\Redis\Exception\ProtocolException;
use Bobbin\Redis\Internal\ErrorFactory;
use Bobbin\Redis\Internal\ErrorReply;
use Bobbin\Redis\Internal\Push;
use Bobbin\Redis\Internal\RespEncoder;
use Bobbin\Redis\Internal\RespParser;
use Bobbin\Redis\Internal\SessionOpener;
use Bobbin\Redis\Internal\Socket;
use Closure;

/**
 * One connection to Redis, shared by any number of fibers: their commands are pipelined (the
 * commands of one loop tick leave in one write: Async\EndOfTurnWriter, as in Tarantool and NATS)
 * and replies are matched to them by position.
 *
 * Every command gets a number when its bytes join the output, in wire order, and the Nth reply
 * read (pushes aside) is the answer to command N — always, whatever happened to its caller. A
 * caller that stops waiting (cancelled, timed out) gives up its number, not its place: its reply
 * is still read and dropped, so no reply can ever reach a caller it does not belong to. A reply
 * that never comes after a timeout closes the connection (after DRAIN_TIMEOUT), failing the
 * commands behind it instead of leaving them waiting.
 *
 * No fiber of its own: the first waiter reads for everyone and hands each reply to its fiber
 * directly, then passes the reading on (Async\SharedReader, as in Tarantool and IPC). Outside any
 * fiber the same calls run the loop, or sleep in one blocking wait when nothing else is on it.
 *
 * Over 400 lines: the pipelining core (queue, replies, breakage) is one state machine over one
 * socket.
 */
final class Connection implements Executor, ReplySource
{
    use OwnsResources;

    use ExecutesCommands;

    /** How long a timed-out command's reply may still take before the connection is closed. */
    public const DRAIN_TIMEOUT = 10.0;

    private readonly SharedReader $reader;
    private bool $open = true;
    private ?\Throwable $lostReason = null;
    /** The commands of one loop tick leave in one write at its end; a lone caller's at once. */
    private readonly EndOfTurnWriter $writer;
    /** Number of the last command whose bytes joined the output. */
    private int $sent = 0;
    /** Number of the last reply read (or of a command taken back before it left: withdrawUnsent()). */
    private int $received = 0;
    /** @var array<int, true> commands taken back before they left: no reply will come for them */
    private array $withdrawn = [];
    /** Replies found by the last read: many means a crowd is about to send, and should share a write. */
    private int $lastDelivered = 0;
    /** @var array<int, true> commands of a pipeline whose replies are kept here for its caller */
    private array $collecting = [];
    /** @var array<int, mixed> */
    private array $collected = [];
    private readonly float $openedAt;
    private float $lastUsedAt;
    /** @var (Closure(Push): void)|null */
    private ?Closure $pushHandler = null;
    /** @var (Closure(int, mixed): void)|null */
    private ?Closure $replyObserver = null;
    /** @var (Closure(): void)|null */
    private ?Closure $closeHandler = null;

    private function __construct(
        private readonly Socket $socket,
        private readonly RespParser $parser,
        private readonly ConnectionConfig $config,
        private readonly int $protocol,
        private readonly int $clientId,
        private readonly string $serverVersion,
    ) {
        $this->reader = new SharedReader();
        // A broken write, at once or later from the writer's fiber, closes the connection.
        $this->writer = new EndOfTurnWriter(function (): void {
            $this->lose($this->brokenWhileSending());
        });
        $socket->attachWriter($this->writer);
        $this->openedAt = $this->lastUsedAt = \microtime(true);
        $socket->markIdle();
    }

    public function __destruct()
    {
        $this->close();
    }

    /**
     * Opens a connection without blocking the loop: socket, TLS, HELLO (AUTH, SETNAME), SELECT.
     *
     * @throws ConnectException|ConnectTimeoutException|CancelledException
     */
    public static function connect(#[\SensitiveParameter] ConnectionConfig|string $config, ?Cancellation $cancellation = null): self
    {
        $config = \is_string($config) ? ConnectionConfig::fromUrl($config) : $config;
        [$socket, $handshake] = SessionOpener::open($config, $cancellation);

        return new self($socket, $handshake->parser, $config, $handshake->protocol, $handshake->clientId, $handshake->serverVersion);
    }

    /**
     * Runs one command: its name first, then its arguments (strings go byte for byte).
     *
     * @param array<int, mixed> $command
     * @throws Exception\CommandException|ConnectionLostException|CommandTimeoutException|CancelledException
     */
    public function execute(array $command, ?Cancellation $cancellation = null): mixed
    {
        // Only a command that can be cancelled is queued so that it can be taken back (a token per command).
        $reply = $cancellation === null
            ? $this->await($this->send($command))
            : $this->awaitOrWithdraw($this->send($command, false, true), $cancellation);
        if ($reply instanceof ErrorReply) {
            throw ErrorFactory::forReply($reply, $command);
        }

        return \is_array($reply) ? ErrorFactory::inPlace($reply, $command) : $reply;
    }

    /**
     * Sends several commands in one write and returns their replies in order, error replies as
     * CommandException objects in their place (not thrown: the others ran).
     *
     * @param list<array<int, mixed>> $commands
     * @return list<mixed>
     */
    public function pipeline(array $commands, ?Cancellation $cancellation = null): array
    {
        if ($commands === []) {
            return [];
        }
        $first = $this->sent + 1;
        $last = $first;
        foreach ($commands as $i => $command) {
            $last = $this->send($command, $i < \count($commands) - 1);
            if ($last !== $first + $i) {
                throw new \LogicException('A pipeline was interleaved with another command');
            }
            if ($i < \count($commands) - 1) {
                $this->collecting[$last] = true;
            }
        }
        try {
            $lastReply = $this->await($last, $cancellation);
        } catch (\Throwable $e) {
            for ($id = $first; $id < $last; $id++) {
                unset($this->collecting[$id], $this->collected[$id]);
            }
            throw $e;
        }
        $replies = [];
        for ($id = $first; $id < $last; $id++) {
            $replies[] = $this->collected[$id] ?? null;
            unset($this->collected[$id]);
        }
        $replies[] = $lastReply;
        foreach ($replies as $i => $reply) {
            if ($reply instanceof ErrorReply || \is_array($reply)) {
                $replies[$i] = ErrorFactory::inPlace($reply, $commands[$i]);
            }
        }

        return $replies;
    }

    /**
     * @internal queues a command's bytes and returns its number (its reply's position)
     * @param array<int, mixed> $command
     * @param bool $more another command follows at once: never write this one alone
     */
    public function send(array $command, bool $more = false, bool $mayWithdraw = false): int
    {
        if (!$this->open) {
            throw $this->lost();
        }
        $frame = RespEncoder::command($command);
        $id = ++$this->sent;
        if ($more || $id - 1 !== $this->received || $this->lastDelivered > 1) {
            // Commands of this loop tick leave together in one write at its end (a lone
            // command's caller may take it back until then: withdrawUnsent()).
            $this->writer->append($frame, $mayWithdraw ? $id : null);

            return $id;
        }
        // A lone caller (nothing in flight, no crowd just woken): one write now, unless bytes wait.
        $this->writer->write($frame);
        // @phpstan-ignore booleanNot.alwaysFalse (a broken write closed the connection: the writer called lose())
        if (!$this->open) {
            throw $this->lost();
        }

        return $id;
    }

    /**
     * @internal waits for the reply to command $id (an ErrorReply is returned, not thrown)
     * @throws ConnectionLostException|CommandTimeoutException|CancelledException|ProtocolException
     */
    public function await(int $id, ?Cancellation $cancellation = null): mixed
    {
        if ($this->config->commandTimeout === null) {
            return $this->awaitReply($id, $cancellation);
        }
        $timeout = new TimeoutCancellation($this->config->commandTimeout);
        try {
            return $this->awaitReply($id, $cancellation === null ? $timeout : new CompositeCancellation($cancellation, $timeout));
        } catch (CancelledException $e) {
            if (($cancellation !== null && $cancellation->isRequested()) || !$timeout->isRequested()) {
                throw $e;
            }
            $this->guardDrain($id);
            throw new CommandTimeoutException(\sprintf('Redis (%s) did not answer within the command timeout of %.3f s', $this->config->describe(), $this->config->commandTimeout), 0, $e);
        } finally {
            $timeout->dispose();
        }
    }

    /**
     * @internal await() for a lone command sent with $mayWithdraw: cancelled in the tick it was
     * queued in, it never leaves (a call that never reached the server raises the cancellation
     * and did not run: the client contract).
     * @throws ConnectionLostException|CommandTimeoutException|CancelledException|ProtocolException
     */
    public function awaitOrWithdraw(int $id, ?Cancellation $cancellation = null): mixed
    {
        try {
            return $this->await($id, $cancellation);
        } catch (CancelledException $e) {
            $this->withdrawUnsent($id);
            throw $e;
        }
    }

    /** Closes the connection at once; fibers waiting on it get a ConnectionLostException. */
    public function close(): void
    {
        $this->lose(new ConnectionLostException(\sprintf('The connection to Redis (%s) was closed', $this->config->describe())));
    }

    public function isClosed(): bool
    {
        return !$this->open;
    }

    /**
     * A cheap liveness check without a round trip, made before sending on a connection that sat
     * idle: the pools' peek (Async\IdleSocketPeek: what the loop's last poll saw, or one
     * recv(MSG_PEEK)); whatever arrived while nothing was asked (pushes, the end of the stream)
     * is read. An idle connection the server closed (restart, CLIENT KILL, its idle timeout)
     * ends here, before a command is sent on it. With commands in flight it is alive as far as
     * anyone can tell: their reader sees the end.
     */
    public function isAlive(): bool
    {
        if (!$this->open) {
            return false;
        }
        if ($this->reader->isReading() || $this->sent !== $this->received || !$this->socket->hasArrived()) {
            return true;
        }
        $this->readArrived();

        return $this->open;
    }

    /** Whether nothing is in flight and nobody reads: what arrives now is pushes (or the end), for isAlive()/catchUp(). */
    public function isIdle(): bool
    {
        return $this->open && !$this->reader->isReading() && $this->sent === $this->received;
    }

    /** Reads what arrived while idle: pushes are handled, the end of the stream closes the connection. */
    private function readArrived(): void
    {
        $bytes = $this->socket->read();
        if ($bytes === null) {
            $this->lose(new ConnectionLostException(\sprintf('Redis (%s) closed the connection while it was idle', $this->config->describe())));

            return;
        }
        if ($bytes !== '') {
            $this->parser->append($bytes);
            try {
                $this->deliver();
            } catch (ProtocolException) {
                // deliver() closed the connection.
            }
        }
        if ($this->open) {
            $this->socket->markIdle();
        }
    }

    /**
     * @internal before answering from the client-side cache: reads what has arrived when nobody
     * else reads (pushes; the end of the stream closes the connection). True when the connection
     * is open and nothing unread waits in its socket, so every invalidation that had reached this
     * process is applied; false when bytes wait that another fiber is about to read (an
     * invalidation may be among them: ask the server).
     */
    public function catchUp(): bool
    {
        if (!$this->open) {
            return false;
        }
        if (!$this->socket->isReadableNow()) {
            return true;
        }
        if (!$this->isIdle()) {
            return false;
        }
        $this->readArrived();

        return $this->open;
    }

    /** Waits up to $timeout s until every command sent has its reply (cancelled callers' too); else closes the connection. */
    public function awaitIdle(float $timeout): void
    {
        if (!$this->open || $this->received === $this->sent) {
            return;
        }
        $bound = new TimeoutCancellation($timeout);
        try {
            while (!$this->isClosed() && $this->received < $this->sent && !$this->reader->isWaiting($this->sent)) {
                $this->awaitReply($this->sent, $bound);
            }
        } catch (\Throwable) {
            $this->close();
        } finally {
            $bound->dispose();
        }
    }

    /** Commands sent whose replies have not been read (abandoned ones included). */
    public function inFlight(): int
    {
        return $this->sent - $this->received;
    }

    /** 3 when HELLO 3 was accepted (RESP3: maps, pushes), else 2. */
    public function protocol(): int
    {
        return $this->protocol;
    }

    /** The server's id of this connection (CLIENT ID): what CLIENT KILL ID and CLIENT UNBLOCK take. */
    public function clientId(): int
    {
        return $this->clientId;
    }

    public function serverVersion(): string
    {
        return $this->serverVersion;
    }

    public function config(): ConnectionConfig
    {
        return $this->config;
    }

    public function openedAt(): float
    {
        return $this->openedAt;
    }

    public function lastUsedAt(): float
    {
        return $this->lastUsedAt;
    }

    /**
     * @internal what to do with RESP3 pushes (invalidations); called from the reader, in order
     * @param (Closure(Push): void)|null $handler
     */
    public function onPush(?Closure $handler): void
    {
        $this->pushHandler = $handler;
    }

    /**
     * @internal called with each reply's number and value as it is read, before its caller
     * resumes (and whether or not it still waits)
     * @param (Closure(int, mixed): void)|null $observer
     */
    public function onReply(?Closure $observer): void
    {
        $this->replyObserver = $observer;
    }

    /**
     * @internal called once when the connection ends, however it ends
     * @param (Closure(): void)|null $handler
     */
    public function onClose(?Closure $handler): void
    {
        $this->closeHandler = $handler;
    }

    private function awaitReply(int $id, ?Cancellation $cancellation): mixed
    {
        if (!$this->open) {
            throw $this->lost();
        }

        return $this->reader->await($id, $cancellation, $this);
    }

    /** @internal the SharedReader's: reads once (waiting first when nothing has arrived) and delivers every complete reply */
    public function readReplies(?Cancellation $cancellation, bool $first): void
    {
        $bytes = $this->socket->read();
        if ($bytes === '') {
            try {
                $this->socket->awaitReadable($cancellation);
            } catch (ConnectionLostException $e) {
                throw $this->open ? $e : $this->lost();
            }
            $bytes = $this->socket->read();
            if ($bytes === '') {
                return;
            }
        }
        if ($bytes === null) {
            if ($this->open) {
                $this->lose(new ConnectionLostException(\sprintf('Redis (%s) closed the connection before answering; the command may or may not have run', $this->config->describe())));
            }
            throw $this->lost();
        }
        $this->parser->append($bytes);
        $this->deliver();
        $this->lastUsedAt = \microtime(true);
        if ($this->sent === $this->received && $this->open) {
            // Nothing in flight: what arrives from now on, isAlive() may peek at.
            $this->socket->markIdle();
        }
    }

    /** @throws ProtocolException (the connection is closed first) */
    private function deliver(): void
    {
        $delivered = 0;
        try {
            while ($this->parser->next()) {
                $reply = $this->parser->reply;
                if ($reply instanceof Push) {
                    if ($this->pushHandler !== null) {
                        ($this->pushHandler)($reply);
                    }
                    continue;
                }
                $id = ++$this->received;
                while (isset($this->withdrawn[$id])) { // taken back before it left: no reply of its own
                    unset($this->withdrawn[$id]);
                    $id = ++$this->received;
                }
                if ($id > $this->sent) {
                    throw new ProtocolException('Redis sent a reply to no command');
                }
                $delivered++;
                if ($this->replyObserver !== null) {
                    ($this->replyObserver)($id, $reply);
                }
                if ($this->collecting !== [] && isset($this->collecting[$id])) {
                    unset($this->collecting[$id]);
                    $this->collected[$id] = $reply;
                } else {
                    // Dropped when its caller no longer waits: the position is what counts.
                    $this->reader->deliver($id, $reply);
                }
            }
        } catch (ProtocolException $e) {
            $this->lose(new ProtocolException(\sprintf('Redis (%s) sent a malformed reply: %s; the connection was closed', $this->config->describe(), $e->getMessage()), 0, $e));
            throw $this->lost();
        }
        $this->lastDelivered = $delivered;
    }

    /**
     * Takes command $id back if its bytes have not left yet: no reply will come for it, so the
     * replies that do come go to the commands after it (deliver() skips its number).
     */
    private function withdrawUnsent(int $id): void
    {
        if (!$this->writer->isUnsent($id)) {
            return;
        }
        $this->writer->forget($id);
        $this->withdrawn[$id] = true;
        // Every reply before it came already: nothing will arrive to step past its number.
        while (isset($this->withdrawn[$this->received + 1])) {
            unset($this->withdrawn[++$this->received]);
        }
        if ($this->sent === $this->received && $this->open) {
            $this->socket->markIdle();
        }
    }

    /** A timed-out command whose reply never comes would hold every command behind it. */
    private function guardDrain(int $id): void
    {
        Timer::after(self::DRAIN_TIMEOUT, function () use ($id): void {
            if ($this->open && $this->received < $id) {
                $this->lose(new ConnectionLostException(\sprintf(
                    'Redis (%s) did not answer a timed-out command within %.0f s more; the connection was closed',
                    $this->config->describe(),
                    self::DRAIN_TIMEOUT,
                )));
            }
        })->unreference();
    }

    private function brokenWhileSending(): ConnectionLostException
    {
        return new ConnectionLostException(\sprintf('The connection to Redis (%s) broke while sending; the commands in flight may or may not have run', $this->config->describe()));
    }

    private function lost(): \Throwable
    {
        return $this->lostReason ??= new ConnectionLostException('The connection to Redis is closed');
    }

    private function lose(\Throwable $reason): void
    {
        if (!$this->open) {
            return;
        }
        $this->open = false;
        $this->lostReason = $reason;
        // @phpstan-ignore property.uninitializedReadonly (the writer reports a failure only after the constructor)
        $this->writer->fail($reason);
        $this->collecting = $this->collected = [];
        $this->socket->close();
        // @phpstan-ignore property.uninitializedReadonly (set before the writer that may call this)
        $this->reader->failAll($reason);
        $handler = $this->closeHandler;
        $this->closeHandler = null;
        if ($handler !== null) {
            $handler();
        }
    }
}
