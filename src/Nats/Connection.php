<?php

declare(strict_types=1);

namespace Bobbin\Nats;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\CompositeCancellation;
use Bobbin\Async\DeferredFuture;
use Bobbin\Async\OwnsResources;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Async\Timer;
use Bobbin\Nats\Exception\ConnectionClosedException;
use Bobbin\Nats\Exception\ConnectionLostException;
use Bobbin\Nats\Exception\NatsException;
use Bobbin\Nats\Exception\NoRespondersException;
use Bobbin\Nats\Exception\PayloadTooLargeException;
use Bobbin\Nats\Exception\ProtocolException;
use Bobbin\Nats\Exception\RequestTimeoutException;
use Bobbin\Nats\Exception\ServerErrorException;
use Bobbin\Nats\Exception\SlowConsumerException;
use Bobbin\Nats\Exception\SubscriptionClosedException;
use Bobbin\Nats\Internal\Commands;
use Bobbin\Nats\Internal\FrameKind;
use Bobbin\Nats\Internal\Handshake;
use Bobbin\Nats\Internal\MessageBuffer;
use Bobbin\Nats\Internal\OutboundQueue;
use Bobbin\Nats\Internal\ProtocolParser;
use Bobbin\Nats\Internal\ServerFrame;
use Bobbin\Nats\Internal\Socket;
use Bobbin\Nats\JetStream\JetStream;
use Closure;

/**
 * One connection to a NATS server, shared by every fiber of the process: publish, subscribe (with
 * queue groups), request–reply over one shared inbox subscription, keep-alive, and automatic
 * reconnection that subscribes everything again.
 *
 * A reader fiber takes what the server sends and hands each message to its subscription, inbox
 * or waiting request; what fibers publish in one loop tick goes out in one write. Publishing does
 * not wait for the server (NATS is at most once); flush() is the round trip that proves the
 * server has everything sent before it. Called outside a fiber (a script, PHP-FPM) every wait
 * runs the loop until it is over, so the same code works there.
 *
 * Reconnects: when the socket breaks (or PINGs go unanswered), requests and inboxes whose bytes
 * may have reached the server fail with ConnectionLostException — they may or may not have been
 * handled, and nothing is retried; publishes not yet written are kept (up to
 * ConnectionConfig::$reconnectBufferBytes) and go out, after the subscriptions, on the new
 * connection. close() when done: the connection keeps a reader and a keep-alive timer.
 */
final class Connection
{
    use OwnsResources;

    private Socket $socket;
    private ProtocolParser $parser;
    private ConnectionState $state = ConnectionState::Connected;
    private readonly OutboundQueue $out;
    /** @var array<int, Subscription> by sid */
    private array $subscriptions = [];
    private int $nextSid = 0;
    /** @var array<string, mixed> */
    private array $info;
    /** Subject prefix of the shared inbox subscription, '' until the first request. */
    private string $inboxPrefix = '';
    private int $inboxSid = 0;
    private int $nextToken = 0;
    /** @var array<int, DeferredFuture<Message>|Inbox> requests and inboxes waiting for answers, by token */
    private array $replies = [];
    /** @var list<DeferredFuture<null>|null> one per PING sent, in order (null: a keep-alive PING) */
    private array $pongWaiters = [];
    private int $pingsOut = 0;
    private bool $flushScheduled = false;
    private bool $writerActive = false;
    /** @var array<int, true> sids of subscriptions being drained (UNSUB sent, PONG awaited) */
    private array $draining = [];
    /** @var list<DeferredFuture<null>> publishers waiting for the queue to drain */
    private array $drainWaiters = [];
    /** @var list<DeferredFuture<null>> callers waiting for a reconnect to finish */
    private array $reconnectWaiters = [];
    private readonly CancellationSource $closing;
    private ?Timer $keepAlive = null;
    private ?\Throwable $closedBecause = null;
    private ?string $staleReason = null;
    /** @var Closure(NatsException): void */
    private Closure $errorHandler;
    private readonly Closure $flushCallback;
    private int $inMessages = 0;
    private int $inBytes = 0;
    private int $outMessages = 0;
    private int $outBytes = 0;
    private int $reconnects = 0;
    private ?JetStream $jetStream = null;

    private function __construct(public readonly ConnectionConfig $config, Handshake $handshake)
    {
        $this->socket = $handshake->socket;
        $this->parser = $handshake->parser;
        $this->info = $handshake->info;
        $this->out = new OutboundQueue();
        $this->closing = new CancellationSource();
        $this->errorHandler = static function (NatsException $error): void {
        };
        $this->flushCallback = $this->flushNow(...);
        Async::run($this->read(...))->ignore();
        if ($config->pingInterval > 0) {
            $this->keepAlive = Timer::every($config->pingInterval, $this->ping(...))->unreference();
        }
    }

    /**
     * Connects, authenticates and returns the connection ready for use.
     *
     * @throws Exception\ConnectException|Exception\AuthorizationException|CancelledException
     */
    public static function connect(#[\SensitiveParameter] ConnectionConfig|string $config, ?Cancellation $cancellation = null): self
    {
        $config = \is_string($config) ? ConnectionConfig::fromUrl($config) : $config;

        return new self($config, Handshake::perform($config, $cancellation));
    }

    /**
     * Errors no caller is waiting for: a slow consumer's drops, an -ERR from the server (a
     * permissions violation), a reconnect attempt that failed.
     *
     * @param Closure(NatsException): void $handler
     */
    public function onError(Closure $handler): void
    {
        $this->errorHandler = $handler;
    }

    /**
     * Sends a message; returns once it is queued (it goes out at the end of this loop tick). Waits
     * only when more than ConnectionConfig::$maxPendingBytes are queued for the socket.
     *
     * @throws ConnectionLostException when reconnecting and the reconnect buffer is full
     * @throws PayloadTooLargeException|ConnectionClosedException|\InvalidArgumentException
     */
    public function publish(string $subject, string $payload = '', ?Headers $headers = null, ?string $replyTo = null, ?Cancellation $cancellation = null): void
    {
        $this->checkSize($subject, $payload, $headers);
        $this->send(Commands::publish($subject, $payload, $replyTo, $headers), null, $cancellation);
        $this->outMessages++;
    }

    /**
     * @throws ConnectionClosedException|\InvalidArgumentException
     */
    public function subscribe(string $subject, ?string $queueGroup = null): Subscription
    {
        $this->assertOpen();
        $sid = ++$this->nextSid;
        $command = Commands::subscribe($subject, $sid, $queueGroup);
        $subscription = new Subscription(
            $sid,
            $subject,
            $queueGroup,
            new MessageBuffer($this->config->pendingMessagesLimit, $this->config->pendingBytesLimit),
            $this->unsubscribe(...),
            $this->drain(...),
        );
        $this->subscriptions[$sid] = $subscription;
        if ($this->state === ConnectionState::Connected) {
            $this->out->add($command);
            $this->schedule();
        }

        return $subscription;
    }

    /**
     * Sends a request and returns its first reply. The reply comes to this connection's shared
     * inbox (one subscription for every request).
     *
     * @param float|null $timeout seconds (null: ConnectionConfig::$requestTimeout)
     * @throws NoRespondersException nobody subscribes to $subject (nothing ran)
     * @throws RequestTimeoutException no reply in time (it may or may not have been handled)
     * @throws ConnectionLostException the connection broke while the request was in flight
     * @throws PayloadTooLargeException|ConnectionClosedException|CancelledException|\InvalidArgumentException
     */
    public function request(string $subject, string $payload = '', ?float $timeout = null, ?Headers $headers = null, ?Cancellation $cancellation = null): Message
    {
        $timeout ??= $this->config->requestTimeout;
        $this->checkSize($subject, $payload, $headers);
        $token = $this->nextToken();
        /** @var DeferredFuture<Message> $reply */
        $reply = new DeferredFuture();
        $limit = new TimeoutCancellation($timeout, 'The request timed out');
        $this->replies[$token] = $reply;
        try {
            $this->send(Commands::publish($subject, $payload, $this->inboxPrefix . $token, $headers), $token, $cancellation);
            $this->outMessages++;
            $message = $reply->future()->await($cancellation === null ? $limit : new CompositeCancellation($cancellation, $limit));
        } catch (CancelledException $cancelled) {
            if ($cancellation !== null && $cancellation->isRequested()) {
                throw $cancelled;
            }
            throw new RequestTimeoutException(\sprintf('No reply to the request on %s within %s s (it may or may not have been handled)', $subject, \round($timeout, 3)), 0, $cancelled);
        } finally {
            $limit->dispose();
            unset($this->replies[$token]);
            $this->out->forget($token);
        }
        if ($message->status() === 503) {
            throw new NoRespondersException(\sprintf('Nobody subscribes to %s: the request was not handled', $subject));
        }

        return $message;
    }

    /**
     * A reply subject of its own for a conversation with many answers; the answers are read from
     * it. Close it when done.
     *
     * @param bool $interruptOnReconnect a fiber waiting on it gets ConnectionLostException when the connection breaks
     */
    public function openInbox(bool $interruptOnReconnect = true): Inbox
    {
        $token = $this->nextToken();
        $inbox = new Inbox(
            $this->inboxPrefix . $token,
            $token,
            $interruptOnReconnect,
            new MessageBuffer($this->config->pendingMessagesLimit, $this->config->pendingBytesLimit),
            function (Inbox $inbox): void {
                unset($this->replies[$inbox->token]);
                $inbox->end(new SubscriptionClosedException('The inbox was closed'));
            },
        );
        $this->replies[$token] = $inbox;

        return $inbox;
    }

    /**
     * A round trip (PING, PONG): when it returns, the server has received everything published
     * before it on this connection.
     *
     * @throws ConnectionLostException|ConnectionClosedException|RequestTimeoutException|CancelledException
     */
    public function flush(?float $timeout = null, ?Cancellation $cancellation = null): void
    {
        $this->assertOpen();
        if ($this->state !== ConnectionState::Connected) {
            $this->awaitReconnect($timeout ?? $this->config->requestTimeout, $cancellation);
        }
        /** @var DeferredFuture<null> $pong */
        $pong = new DeferredFuture();
        $this->pongWaiters[] = $pong;
        $this->out->add(Commands::PING);
        $this->schedule();
        $limit = new TimeoutCancellation($timeout ?? $this->config->requestTimeout);
        try {
            $pong->future()->await($cancellation === null ? $limit : new CompositeCancellation($cancellation, $limit));
        } catch (CancelledException $cancelled) {
            if ($cancellation !== null && $cancellation->isRequested()) {
                throw $cancelled;
            }
            throw new RequestTimeoutException('The server did not answer PING in time', 0, $cancelled);
        } finally {
            $limit->dispose();
        }
    }

    /** Stops everything: what is queued is written if the socket takes it now; waiting fibers get ConnectionClosedException. */
    public function close(): void
    {
        if ($this->state === ConnectionState::Closed) {
            return;
        }
        if ($this->state === ConnectionState::Connected) {
            try {
                $this->out->writeTo($this->socket);
            } catch (NatsException) {
            }
        }
        $this->shutDown(new ConnectionClosedException('The connection was closed'));
    }

    public function state(): ConnectionState
    {
        return $this->state;
    }

    /** @return array<string, mixed> the server's INFO (server_id, version, max_payload, headers, jetstream…) */
    public function serverInfo(): array
    {
        return $this->info;
    }

    /** A subject no one else uses, for replies. */
    public function newInbox(): string
    {
        return '_INBOX.' . self::randomToken();
    }

    public function jetStream(): JetStream
    {
        return $this->jetStream ??= new JetStream($this);
    }

    public function statistics(): ConnectionStatistics
    {
        $dropped = 0;
        foreach ($this->subscriptions as $subscription) {
            $dropped += $subscription->dropped();
        }

        return new ConnectionStatistics(
            $this->state,
            $this->inMessages,
            $this->inBytes,
            $this->outMessages,
            $this->outBytes,
            $this->reconnects,
            $dropped,
            \count($this->subscriptions),
            \count($this->replies),
            $this->out->pendingBytes(),
        );
    }

    /** @throws ConnectionLostException|ConnectionClosedException|CancelledException */
    private function send(string $command, ?int $token, ?Cancellation $cancellation): void
    {
        $this->assertOpen();
        if ($this->state === ConnectionState::Reconnecting && $this->out->pendingBytes() + \strlen($command) > $this->config->reconnectBufferBytes) {
            throw new ConnectionLostException(\sprintf('The connection to NATS (%s) is down and its reconnect buffer of %d bytes is full: nothing was sent', $this->config->describe(), $this->config->reconnectBufferBytes));
        }
        if ($this->state === ConnectionState::Connected && $this->out->pendingBytes() > $this->config->maxPendingBytes) {
            $this->awaitDrain($cancellation);
        }
        $this->out->add($command, $token);
        $this->outBytes += \strlen($command);
        $this->schedule();
    }

    private function schedule(): void
    {
        if (!$this->flushScheduled && !$this->writerActive && $this->state === ConnectionState::Connected) {
            $this->flushScheduled = true;
            Async::defer($this->flushCallback);
        }
    }

    /** At the end of the tick: one write of everything queued; a writer fiber for what the kernel did not take. */
    private function flushNow(): void
    {
        $this->flushScheduled = false;
        if ($this->writerActive || $this->state !== ConnectionState::Connected) {
            return;
        }
        $socket = $this->socket;
        try {
            $this->out->writeTo($socket);
        } catch (NatsException) {
            $socket->close(); // the reader notices and reconnects

            return;
        }
        if ($this->out->isEmpty()) {
            $this->wakeDrainWaiters();

            return;
        }
        $this->writerActive = true;
        Async::run(function () use ($socket): void {
            try {
                while (!$this->out->isEmpty() && $socket === $this->socket) {
                    $socket->awaitWritable();
                    $this->out->writeTo($socket);
                }
            } catch (\Throwable) {
                $socket->close();
            } finally {
                $this->writerActive = false;
                $this->wakeDrainWaiters();
                $this->schedule();
            }
        })->ignore();
    }

    /** The reader fiber: reads until the socket breaks, then reconnects (or gives up), until close(). */
    private function read(): void
    {
        while (true) {
            try {
                $this->readUntilBroken($this->socket);
            } catch (\Throwable $reason) {
            }
            if ($this->isClosed()) {
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
            if ($this->isClosed()) {
                return;
            }
        }
    }

    private function isClosed(): bool
    {
        return $this->state === ConnectionState::Closed;
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
                if ($frame instanceof Message) {
                    $this->dispatch($frame);
                } else {
                    $this->control($frame);
                }
            }
        }
    }

    private function dispatch(Message $message): void
    {
        $this->inMessages++;
        if ($message->sid === $this->inboxSid) {
            $token = (int) \substr($message->subject, \strlen($this->inboxPrefix));
            $waiting = $this->replies[$token] ?? null;
            if ($waiting instanceof Inbox) {
                $waiting->deliver($message);
            } elseif ($waiting !== null && !$waiting->isComplete()) {
                $waiting->complete($message);
            }

            return;
        }
        $subscription = $this->subscriptions[$message->sid] ?? null;
        if ($subscription === null) {
            return; // delivered before the server saw our UNSUB
        }
        if (!$subscription->deliver($message) && $subscription->startedDropping()) {
            ($this->errorHandler)(new SlowConsumerException(\sprintf(
                'The subscription to %s cannot keep up: it holds %d unread messages and drops new ones',
                $subscription->subject,
                $subscription->pending(),
            )));
        }
        if ($subscription->max !== null && $subscription->delivered >= $subscription->max) {
            unset($this->subscriptions[$message->sid]);
            $subscription->end(new SubscriptionClosedException(\sprintf('The subscription to %s reached its limit of %d messages', $subscription->subject, $subscription->max)));
        }
    }

    private function control(ServerFrame $frame): void
    {
        switch ($frame->kind) {
            case FrameKind::Ping:
                $this->out->add(Commands::PONG);
                $this->schedule();
                break;
            case FrameKind::Pong:
                $this->pingsOut = 0;
                $waiter = \array_shift($this->pongWaiters);
                $waiter?->complete();
                break;
            case FrameKind::Info:
                $this->info = $frame->info + $this->info;
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
        $this->socket->close();
        $why = $this->staleReason ?? $reason->getMessage();
        $this->staleReason = null;
        $lost = new ConnectionLostException(\sprintf('The connection to NATS (%s) broke while this was in flight (%s); it may or may not have been handled', $this->config->describe(), $why));
        foreach ($this->replies as $token => $waiting) {
            if ($waiting instanceof Inbox) {
                if ($waiting->interruptOnReconnect) {
                    $waiting->interrupt($lost);
                }
            } elseif (!$this->out->isUnsent($token)) {
                $waiting->fail($lost);
            }
        }
        foreach ($this->pongWaiters as $waiter) {
            $waiter?->fail($lost);
        }
        $this->pongWaiters = [];
        $this->pingsOut = 0;
        $this->out->afterDisconnect();
    }

    private function reconnect(): void
    {
        $wait = $this->config->reconnectWait;
        $attempts = 0;
        $lastError = null;
        while (true) {
            if ($this->config->maxReconnectAttempts >= 0 && $attempts >= $this->config->maxReconnectAttempts) {
                $this->shutDown(new ConnectionLostException(\sprintf('Gave up reconnecting to NATS (%s) after %d attempts: %s', $this->config->describe(), $attempts, $lastError?->getMessage() ?? 'no attempt')));

                return;
            }
            $attempts++;
            try {
                Async::delay($wait * (0.75 + \mt_rand() / \mt_getrandmax() / 2), $this->closing);
                $handshake = Handshake::perform($this->config, $this->closing);
            } catch (CancelledException) {
                return; // closed meanwhile
            } catch (NatsException $error) {
                $lastError = $error;
                $wait = \min($this->config->maxReconnectWait, $wait * 2);
                continue;
            }
            $this->socket = $handshake->socket;
            $this->parser = $handshake->parser;
            $this->info = $handshake->info;
            $this->state = ConnectionState::Connected;
            $this->reconnects++;
            $this->resubscribe();
            foreach ($this->reconnectWaiters as $waiter) {
                $waiter->complete();
            }
            $this->reconnectWaiters = [];
            $this->schedule();

            return;
        }
    }

    /** After a reconnect, before anything else queued: every subscription again, with what is left of its limit. */
    private function resubscribe(): void
    {
        $commands = '';
        if ($this->inboxSid !== 0) {
            $commands .= Commands::subscribe($this->inboxPrefix . '*', $this->inboxSid);
        }
        foreach ($this->subscriptions as $sid => $subscription) {
            if (isset($this->draining[$sid])) {
                continue;
            }
            $commands .= Commands::subscribe($subscription->subject, $sid, $subscription->queueGroup);
            if ($subscription->max !== null) {
                $commands .= Commands::unsubscribe($sid, $subscription->max - $subscription->delivered);
                $subscription->max -= $subscription->delivered;
                $subscription->delivered = 0;
            }
        }
        if ($commands !== '') {
            $this->out->addFirst($commands);
        }
    }

    /** @param Subscription $subscription */
    private function unsubscribe(Subscription $subscription, ?int $max): void
    {
        if (!isset($this->subscriptions[$subscription->sid])) {
            return;
        }
        if ($max === null) {
            unset($this->subscriptions[$subscription->sid]);
            $subscription->end(new SubscriptionClosedException(\sprintf('Unsubscribed from %s', $subscription->subject)));
        } else {
            $subscription->max = $max;
        }
        if ($this->state === ConnectionState::Connected) {
            $this->out->add(Commands::unsubscribe($subscription->sid, $max));
            $this->schedule();
        }
    }

    private function drain(Subscription $subscription, ?float $timeout, ?Cancellation $cancellation): void
    {
        if (!isset($this->subscriptions[$subscription->sid])) {
            return;
        }
        // Still routed while the UNSUB is on its way: what the server sends before it lands in the buffer.
        if ($this->state === ConnectionState::Connected) {
            $this->out->add(Commands::unsubscribe($subscription->sid, null));
            $this->schedule();
        }
        $this->draining[$subscription->sid] = true; // not subscribed again by a reconnect meanwhile
        try {
            $this->flush($timeout, $cancellation);
        } finally {
            unset($this->subscriptions[$subscription->sid], $this->draining[$subscription->sid]);
            $subscription->end(new SubscriptionClosedException(\sprintf('Drained the subscription to %s', $subscription->subject)));
        }
    }

    private function nextToken(): int
    {
        $this->assertOpen();
        if ($this->inboxPrefix === '') {
            $this->inboxPrefix = '_INBOX.' . self::randomToken() . '.';
            $this->inboxSid = ++$this->nextSid;
            if ($this->state === ConnectionState::Connected) {
                $this->out->add(Commands::subscribe($this->inboxPrefix . '*', $this->inboxSid));
            }
        }

        return ++$this->nextToken;
    }

    /** The keep-alive timer: a PING, or, when too many went unanswered, the end of this socket. */
    private function ping(): void
    {
        if ($this->state !== ConnectionState::Connected) {
            return;
        }
        if ($this->pingsOut >= $this->config->maxPingsOut) {
            $this->staleReason = \sprintf('no PONG to %d PINGs: the connection is stale', $this->pingsOut);
            $this->socket->close();

            return;
        }
        $this->pingsOut++;
        $this->pongWaiters[] = null;
        $this->out->add(Commands::PING);
        $this->schedule();
    }

    /** @throws CancelledException */
    private function awaitDrain(?Cancellation $cancellation): void
    {
        /** @var DeferredFuture<null> $drained */
        $drained = new DeferredFuture();
        $this->drainWaiters[] = $drained;
        $this->schedule();
        $drained->future()->await($cancellation);
    }

    private function wakeDrainWaiters(): void
    {
        if ($this->drainWaiters === [] || $this->out->pendingBytes() > $this->config->maxPendingBytes / 2) {
            return;
        }
        $waiters = $this->drainWaiters;
        $this->drainWaiters = [];
        foreach ($waiters as $waiter) {
            $waiter->complete();
        }
    }

    /** @throws ConnectionLostException|CancelledException */
    private function awaitReconnect(float $timeout, ?Cancellation $cancellation): void
    {
        /** @var DeferredFuture<null> $up */
        $up = new DeferredFuture();
        $this->reconnectWaiters[] = $up;
        $limit = new TimeoutCancellation($timeout);
        try {
            $up->future()->await($cancellation === null ? $limit : new CompositeCancellation($cancellation, $limit));
        } catch (CancelledException $cancelled) {
            if ($cancellation !== null && $cancellation->isRequested()) {
                throw $cancelled;
            }
            throw new ConnectionLostException(\sprintf('The connection to NATS (%s) is down and did not come back within %s s', $this->config->describe(), \round($timeout, 3)), 0, $cancelled);
        } finally {
            $limit->dispose();
        }
    }

    private function shutDown(NatsException $reason): void
    {
        if ($this->state === ConnectionState::Closed) {
            return;
        }
        $this->state = ConnectionState::Closed;
        $this->closedBecause = $reason;
        $this->keepAlive?->cancel();
        $this->closing->cancel();
        $this->socket->close();
        $this->out->clear();
        foreach ($this->replies as $waiting) {
            $waiting instanceof Inbox ? $waiting->end($reason) : $waiting->fail($reason);
        }
        $this->replies = [];
        foreach ($this->subscriptions as $subscription) {
            $subscription->end($reason);
        }
        $this->subscriptions = [];
        foreach ([...$this->pongWaiters, ...$this->drainWaiters, ...$this->reconnectWaiters] as $waiter) {
            $waiter?->fail($reason);
        }
        $this->pongWaiters = $this->drainWaiters = $this->reconnectWaiters = [];
    }

    /** @throws PayloadTooLargeException */
    private function checkSize(string $subject, string $payload, ?Headers $headers): void
    {
        $limit = $this->info['max_payload'] ?? null;
        if (!\is_int($limit)) {
            return;
        }
        $size = \strlen($payload) + ($headers === null ? 0 : \strlen($headers->encode()));
        if ($size > $limit) {
            throw new PayloadTooLargeException(\sprintf('A message of %d bytes to %s is over the server\'s max_payload of %d: nothing was sent', $size, $subject, $limit));
        }
    }

    /** @throws ConnectionClosedException|ConnectionLostException */
    private function assertOpen(): void
    {
        if ($this->state === ConnectionState::Closed) {
            throw $this->closedBecause instanceof ConnectionLostException
                ? new ConnectionLostException($this->closedBecause->getMessage(), 0, $this->closedBecause)
                : new ConnectionClosedException('The NATS connection is closed');
        }
    }

    private static function randomToken(): string
    {
        return \rtrim(\strtr(\base64_encode(\random_bytes(16)), '+/', 'AB'), '=');
    }
}
