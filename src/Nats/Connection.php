<?php

declare(strict_types=1);

namespace Bobbin\Nats;

use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Bobbin\Async\CancelledOutcomeUnknownException;
use Bobbin\Async\DeferredFuture;
use Bobbin\Async\EndOfTurnWriter;
use Bobbin\Async\OwnsResources;
use Bobbin\Nats\Exception\ConnectionClosedException;
use Bobbin\Nats\Exception\ConnectionLostException;
use Bobbin\Nats\Exception\NatsException;
use Bobbin\Nats\Exception\NoRespondersException;
use Bobbin\Nats\Exception\PayloadTooLargeException;
use Bobbin\Nats\Exception\RequestTimeoutException;
use Bobbin\Nats\Exception\SubscriptionClosedException;
use Bobbin\Nats\Internal\BoundedWait;
use Bobbin\Nats\Internal\Commands;
use Bobbin\Nats\Internal\Handshake;
use Bobbin\Nats\Internal\Link;
use Bobbin\Nats\Internal\MessageBuffer;
use Bobbin\Nats\Internal\PongWaiters;
use Bobbin\Nats\Internal\ReplyRouter;
use Bobbin\Nats\Internal\SubscriptionTable;
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

    /** Subjects whose PUB prefix is kept; past this many the table starts afresh (subjects made per message do not grow it without end). */
    private const PUBLISH_PREFIXES = 1024;

    private readonly Link $link;
    private readonly EndOfTurnWriter $writer;
    private readonly SubscriptionTable $subscriptions;
    private readonly ReplyRouter $replies;
    private readonly PongWaiters $pongs;
    private int $outMessages = 0;
    private int $outBytes = 0;
    private ?JetStream $jetStream = null;
    /** @var array<string, string> "PUB subject " by subject, for subjects already checked */
    private array $publishPrefixes = [];

    private function __construct(public readonly ConnectionConfig $config, Handshake $handshake)
    {
        // A burst of publishes is written once 64 KB are queued, while the rest is being built (as
        // the C client flushes its 32 KB buffer when full); a broken write closes the socket, the
        // reader notices and reconnects.
        $this->writer = new EndOfTurnWriter(function (): void {
            // @phpstan-ignore property.uninitializedReadonly (called on a broken write, after the constructor)
            $this->link->closeSocket();
        }, $config->maxPendingBytes, 65_536);
        $this->subscriptions = new SubscriptionTable();
        $this->replies = new ReplyRouter();
        $this->pongs = new PongWaiters();
        $this->link = new Link($config, $handshake, $this->writer, $this->subscriptions, $this->replies, $this->pongs);
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
        $this->link->onError($handler);
    }

    /**
     * Sends a message; returns once it is queued (it goes out at the end of this loop tick, or at
     * once when 64 KB are queued). Waits only when more than ConnectionConfig::$maxPendingBytes
     * are queued for the socket.
     *
     * @throws ConnectionLostException when reconnecting and the reconnect buffer is full
     * @throws PayloadTooLargeException|ConnectionClosedException|\InvalidArgumentException
     */
    public function publish(string $subject, string $payload = '', ?Headers $headers = null, ?string $replyTo = null, ?Cancellation $cancellation = null): void
    {
        if ($headers === null && $replyTo === null) {
            // The common case in one string build: the subject checked once, its "PUB subject " kept.
            $size = \strlen($payload);
            if ($size > $this->link->maxPayload) {
                $this->checkSize($subject, $payload, null);
            }
            $command = ($this->publishPrefixes[$subject] ?? $this->publishPrefix($subject)) . $size . "\r\n" . $payload . "\r\n";
        } else {
            $this->checkSize($subject, $payload, $headers);
            $command = Commands::publish($subject, $payload, $replyTo, $headers);
        }
        $this->send($command, null, $cancellation);
        $this->outMessages++;
    }

    /**
     * @throws ConnectionClosedException|\InvalidArgumentException
     */
    public function subscribe(string $subject, ?string $queueGroup = null): Subscription
    {
        $this->assertOpen();
        $sid = $this->subscriptions->newSid();
        $command = Commands::subscribe($subject, $sid, $queueGroup);
        $subscription = new Subscription(
            $sid,
            $subject,
            $queueGroup,
            new MessageBuffer($this->config->pendingMessagesLimit, $this->config->pendingBytesLimit),
            $this->unsubscribe(...),
            $this->drain(...),
        );
        $this->subscriptions->add($subscription);
        if ($this->link->state === ConnectionState::Connected) {
            $this->writer->append($command);
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
     * @throws CancelledOutcomeUnknownException cancelled after the request left (a CancelledException
     *         and an Async\OutcomeUnknown: its responder may handle it all the same)
     * @throws PayloadTooLargeException|ConnectionClosedException|CancelledException|\InvalidArgumentException
     */
    public function request(string $subject, string $payload = '', ?float $timeout = null, ?Headers $headers = null, ?Cancellation $cancellation = null): Message
    {
        $timeout ??= $this->config->requestTimeout;
        $this->checkSize($subject, $payload, $headers);
        $token = $this->nextToken();
        /** @var DeferredFuture<Message> $reply */
        $reply = new DeferredFuture();
        $this->replies->register($token, $reply);
        $queued = false;
        try {
            $this->send(Commands::publish($subject, $payload, $this->replies->replySubject($token), $headers), $token, $cancellation);
            $queued = true;
            $this->outMessages++;
            $message = BoundedWait::await(
                $reply->future(),
                $timeout,
                $cancellation,
                static fn (CancelledException $cancelled): \Throwable => new RequestTimeoutException(\sprintf('No reply to the request on %s within %s s (it may or may not have been handled)', $subject, \round($timeout, 3)), 0, $cancelled),
                'The request timed out',
            );
        } catch (CancelledException $e) {
            // The caller gave up after the PUB left: its responder may handle it all the same,
            // and nothing comes back to say (docs/NATS.md). Before it left: never sent, not done.
            throw !$queued || $this->writer->isUnsent($token) ? $e : new CancelledOutcomeUnknownException($e);
        } finally {
            $this->replies->forget($token);
            $this->writer->forget($token);
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
            $this->replies->replySubject($token),
            $token,
            $interruptOnReconnect,
            new MessageBuffer($this->config->pendingMessagesLimit, $this->config->pendingBytesLimit),
            $this->replies->close(...),
        );
        $this->replies->register($token, $inbox);

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
        if ($this->link->state !== ConnectionState::Connected) {
            $this->link->awaitReconnect($timeout ?? $this->config->requestTimeout, $cancellation);
        }
        $pong = $this->pongs->expect();
        $this->writer->append(Commands::PING);
        BoundedWait::await(
            $pong->future(),
            $timeout ?? $this->config->requestTimeout,
            $cancellation,
            static fn (CancelledException $cancelled): \Throwable => new RequestTimeoutException('The server did not answer PING in time', 0, $cancelled),
        );
    }

    /** Stops everything: what is queued is written if the socket takes it now; waiting fibers get ConnectionClosedException. */
    public function close(): void
    {
        if ($this->link->state === ConnectionState::Closed) {
            return;
        }
        $this->writer->writeWhatFits();
        $this->link->shutDown(new ConnectionClosedException('The connection was closed'));
    }

    public function state(): ConnectionState
    {
        return $this->link->state;
    }

    /** @return array<string, mixed> the server's INFO (server_id, version, max_payload, headers, jetstream…) */
    public function serverInfo(): array
    {
        return $this->link->info;
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
        return new ConnectionStatistics(
            $this->link->state,
            $this->link->inMessages,
            $this->link->inBytes,
            $this->outMessages,
            $this->outBytes,
            $this->link->reconnects,
            $this->subscriptions->dropped(),
            $this->subscriptions->count(),
            $this->replies->count(),
            $this->writer->pendingBytes(),
        );
    }

    /** @throws ConnectionLostException|ConnectionClosedException|CancelledException */
    private function send(string $command, ?int $token, ?Cancellation $cancellation): void
    {
        if ($this->link->state !== ConnectionState::Connected) {
            $this->assertOpen();
            if ($this->writer->pendingBytes() + \strlen($command) > $this->config->reconnectBufferBytes) {
                throw new ConnectionLostException(\sprintf('The connection to NATS (%s) is down and its reconnect buffer of %d bytes is full: nothing was sent', $this->config->describe(), $this->config->reconnectBufferBytes));
            }
        } elseif ($this->writer->isFull()) {
            $this->writer->awaitRoom($cancellation);
        }
        $this->writer->appendEager($command, $token);
        $this->outBytes += \strlen($command);
    }

    /** "PUB subject " for a subject checked now; kept for the next publishes to it (a bounded number of subjects). */
    private function publishPrefix(string $subject): string
    {
        Commands::checkSubject($subject, false);
        if (\count($this->publishPrefixes) >= self::PUBLISH_PREFIXES) {
            $this->publishPrefixes = [];
        }

        return $this->publishPrefixes[$subject] = 'PUB ' . $subject . ' ';
    }

    private function unsubscribe(Subscription $subscription, ?int $max): void
    {
        if (!$this->subscriptions->has($subscription->sid)) {
            return;
        }
        if ($max === null) {
            $this->subscriptions->remove($subscription->sid);
            $subscription->end(new SubscriptionClosedException(\sprintf('Unsubscribed from %s', $subscription->subject)));
        } else {
            $subscription->max = $max;
        }
        if ($this->link->state === ConnectionState::Connected) {
            $this->writer->append(Commands::unsubscribe($subscription->sid, $max));
        }
    }

    private function drain(Subscription $subscription, ?float $timeout, ?Cancellation $cancellation): void
    {
        if (!$this->subscriptions->has($subscription->sid)) {
            return;
        }
        // Still routed while the UNSUB is on its way: what the server sends before it lands in the buffer.
        if ($this->link->state === ConnectionState::Connected) {
            $this->writer->append(Commands::unsubscribe($subscription->sid, null));
        }
        $this->subscriptions->startDraining($subscription->sid);
        try {
            $this->flush($timeout, $cancellation);
        } finally {
            $this->subscriptions->remove($subscription->sid);
            $subscription->end(new SubscriptionClosedException(\sprintf('Drained the subscription to %s', $subscription->subject)));
        }
    }

    private function nextToken(): int
    {
        $this->assertOpen();
        if (!$this->replies->isSubscribed()) {
            $command = $this->replies->subscribe($this->subscriptions->newSid(), self::randomToken());
            if ($this->link->state === ConnectionState::Connected) {
                $this->writer->append($command);
            }
        }

        return $this->replies->nextToken();
    }

    /** @throws PayloadTooLargeException */
    private function checkSize(string $subject, string $payload, ?Headers $headers): void
    {
        $limit = $this->link->maxPayload;
        $size = \strlen($payload) + ($headers === null ? 0 : \strlen($headers->encode()));
        if ($size > $limit) {
            throw new PayloadTooLargeException(\sprintf('A message of %d bytes to %s is over the server\'s max_payload of %d: nothing was sent', $size, $subject, $limit));
        }
    }

    /** @throws ConnectionClosedException|ConnectionLostException */
    private function assertOpen(): void
    {
        if ($this->link->state === ConnectionState::Closed) {
            throw $this->link->closedBecause instanceof ConnectionLostException
                ? new ConnectionLostException($this->link->closedBecause->getMessage(), 0, $this->link->closedBecause)
                : new ConnectionClosedException('The NATS connection is closed');
        }
    }

    private static function randomToken(): string
    {
        return \rtrim(\strtr(\base64_encode(\random_bytes(16)), '+/', 'AB'), '=');
    }
}
