<?php

declare(strict_types=1);

namespace Bobbin\Nats\Internal;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\EndOfTurnWriter;
use Bobbin\Async\CancelledException;
use Bobbin\Async\DeferredFuture;
use Bobbin\Async\Timer;
use Bobbin\Nats\ConnectionConfig;
use Bobbin\Nats\ConnectionState;
use Bobbin\Nats\Exception\ConnectionLostException;
use Bobbin\Nats\Exception\NatsException;
use Bobbin\Nats\Exception\ProtocolException;
use Bobbin\Nats\Exception\ServerErrorException;
use Bobbin\Nats\Message;
use Closure;

/**
 * Keeps a connection's session with the server alive: the reader fiber that hands each message
 * to its subscription or waiting request and answers the server's PINGs, the keep-alive PINGs,
 * and, when the socket breaks, what may have been lost failed, a new session with every
 * subscription again, and the rest of the queue sent on it — or, on close() or when it gives
 * up, everything ended.
 *
 * @internal
 */
final class Link
{
    /** Read by the connection; written here only. */
    public ConnectionState $state = ConnectionState::Connected;
    private Socket $socket;
    private ProtocolParser $parser;
    /** @var array<string, mixed> the server's INFO */
    public array $info;
    /** INFO's max_payload (PHP_INT_MAX when the server names none). */
    public int $maxPayload = \PHP_INT_MAX;
    /** @var list<DeferredFuture<null>> callers waiting for a reconnect to finish */
    private array $reconnectWaiters = [];
    private readonly CancellationSource $closing;
    private ?Timer $keepAlive = null;
    public ?NatsException $closedBecause = null;
    private ?string $staleReason = null;
    /** @var Closure(NatsException): void errors no caller waits for (onError()) */
    private Closure $errorHandler;
    public int $inMessages = 0;
    public int $inBytes = 0;
    public int $reconnects = 0;

    public function __construct(
        private readonly ConnectionConfig $config,
        Handshake $handshake,
        private readonly EndOfTurnWriter $writer,
        private readonly SubscriptionTable $subscriptions,
        private readonly ReplyRouter $replies,
        private readonly PongWaiters $pongs,
    ) {
        $this->socket = $handshake->socket;
        $this->parser = $handshake->parser;
        $this->setInfo($handshake->info);
        $this->closing = new CancellationSource();
        $this->errorHandler = static function (NatsException $error): void {
        };
        $this->socket->attachWriter($writer);
        Async::run($this->read(...))->ignore();
        if ($config->pingInterval > 0) {
            $this->keepAlive = Timer::every($config->pingInterval, $this->ping(...))->unreference();
        }
    }

    /** @param Closure(NatsException): void $handler */
    public function onError(Closure $handler): void
    {
        $this->errorHandler = $handler;
        $this->subscriptions->onError($handler);
    }

    /** @throws ConnectionLostException|CancelledException */
    public function awaitReconnect(float $timeout, ?Cancellation $cancellation): void
    {
        /** @var DeferredFuture<null> $up */
        $up = new DeferredFuture();
        $this->reconnectWaiters[] = $up;
        BoundedWait::await(
            $up->future(),
            $timeout,
            $cancellation,
            fn (CancelledException $cancelled): \Throwable => new ConnectionLostException(\sprintf('The connection to NATS (%s) is down and did not come back within %s s', $this->config->describe(), \round($timeout, 3)), 0, $cancelled),
        );
    }

    /** A write broke the socket (EndOfTurnWriter's failure): the reader notices and reconnects. */
    public function closeSocket(): void
    {
        $this->socket->close();
    }

    /** The end: the socket closed, every waiting fiber gets $reason. */
    public function shutDown(NatsException $reason): void
    {
        if ($this->state === ConnectionState::Closed) {
            return;
        }
        $this->state = ConnectionState::Closed;
        $this->closedBecause = $reason;
        $this->keepAlive?->cancel();
        $this->closing->cancel();
        $this->socket->close();
        $this->replies->endAll($reason);
        $this->subscriptions->endAll($reason);
        $this->pongs->fail($reason);
        $this->writer->fail($reason);
        $waiters = $this->reconnectWaiters;
        $this->reconnectWaiters = [];
        foreach ($waiters as $waiter) {
            $waiter->fail($reason);
        }
    }

    /** The reader fiber: reads until the socket breaks, then reconnects (or gives up), until the end. */
    private function read(): void
    {
        while (true) {
            try {
                $this->readUntilBroken($this->socket);
            } catch (\Throwable $reason) {
            }
            if ($this->state === ConnectionState::Closed) {
                return;
            }
            if ($reason instanceof ProtocolException) {
                ($this->errorHandler)($reason);
            }
            $this->disconnected($reason);
            if (!$this->config->reconnect) {
                $this->shutDown(new ConnectionLostException(\sprintf('The connection to NATS (%s) broke: %s', $this->config->describe(), $reason->getMessage())));

                return;
            }
            $this->reconnect();
            if ($this->state === ConnectionState::Closed) {
                return;
            }
        }
    }

    /** @throws \Throwable when the connection breaks */
    private function readUntilBroken(Socket $socket): never
    {
        while (true) {
            $socket->awaitReadable();
            $bytes = $socket->read();
            if ($bytes === '') {
                continue;
            }
            $this->inBytes += \strlen($bytes);
            $this->parser->append($bytes);
            while (($frame = $this->parser->next()) !== null) {
                if (!$frame instanceof Message) {
                    $this->control($frame);
                    continue;
                }
                $this->inMessages++;
                if ($frame->sid === $this->replies->sid) {
                    $this->replies->route($frame);
                } else {
                    $this->subscriptions->deliver($frame);
                }
            }
        }
    }

    private function control(ServerFrame $frame): void
    {
        switch ($frame->kind) {
            case FrameKind::Ping:
                $this->writer->append(Commands::PONG);
                break;
            case FrameKind::Pong:
                $this->pongs->pong();
                break;
            case FrameKind::Info:
                $this->setInfo($frame->info + $this->info);
                break;
            case FrameKind::Err:
                // A fatal one (a stale connection, a slow consumer, an auth timeout) is followed by the server closing the socket.
                ($this->errorHandler)(new ServerErrorException('NATS said: ' . $frame->error));
                break;
            case FrameKind::Ok:
                break;
        }
    }

    /** The socket broke: fail what may have reached the server, keep the rest for the next connection. */
    private function disconnected(\Throwable $reason): void
    {
        $this->state = ConnectionState::Reconnecting;
        $this->writer->detach();
        $this->socket->close();
        $why = $this->staleReason ?? $reason->getMessage();
        $this->staleReason = null;
        $lost = new ConnectionLostException(\sprintf('The connection to NATS (%s) broke while this was in flight (%s); it may or may not have been handled', $this->config->describe(), $why));
        $this->replies->interrupt($lost, $this->writer);
        $this->pongs->fail($lost);
        // The batch in part written is gone with the socket; PING, PONG, SUB and UNSUB are dropped
        // (the handshake pings afresh and the subscriptions are sent again from the table);
        // publishes not sent yet stay for the new connection.
        $this->writer->discardInFlight(Commands::survivesReconnect(...));
    }

    private function reconnect(): void
    {
        try {
            $handshake = Reconnector::reconnect($this->config, $this->closing);
        } catch (ConnectionLostException $gaveUp) {
            $this->shutDown($gaveUp);

            return;
        }
        if ($handshake === null) {
            return; // closed meanwhile
        }
        $this->socket = $handshake->socket;
        $this->parser = $handshake->parser;
        $this->setInfo($handshake->info);
        $this->state = ConnectionState::Connected;
        $this->reconnects++;
        // Before anything else queued: the inbox and every subscription again.
        $commands = $this->replies->resubscribeCommand() . $this->subscriptions->resubscribeCommands();
        if ($commands !== '') {
            $this->writer->prepend($commands);
        }
        $waiters = $this->reconnectWaiters;
        $this->reconnectWaiters = [];
        foreach ($waiters as $waiter) {
            $waiter->complete();
        }
        $this->socket->attachWriter($this->writer);
    }

    /** @param array<string, mixed> $info */
    private function setInfo(array $info): void
    {
        $this->info = $info;
        $this->maxPayload = \is_int($info['max_payload'] ?? null) ? $info['max_payload'] : \PHP_INT_MAX;
    }

    /** The keep-alive timer: a PING, or, when too many went unanswered, the end of this socket. */
    private function ping(): void
    {
        if ($this->state !== ConnectionState::Connected) {
            return;
        }
        if ($this->pongs->unanswered >= $this->config->maxPingsOut) {
            $this->staleReason = \sprintf('no PONG to %d PINGs: the connection is stale', $this->pongs->unanswered);
            $this->socket->close();

            return;
        }
        $this->pongs->keepAliveSent();
        $this->writer->append(Commands::PING);
    }
}
