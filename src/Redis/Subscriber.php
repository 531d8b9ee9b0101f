<?php

declare(strict_types=1);

namespace Bobbin\Redis;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Bobbin\Async\CompositeCancellation;
use Bobbin\Async\DeferredFuture;
use Bobbin\Async\EndOfTurnWriter;
use Bobbin\Async\OwnsResources;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Redis\Exception\ConnectionLostException;
use Bobbin\Redis\Exception\RedisException;
use Bobbin\Redis\Internal\Handshake;
use Bobbin\Redis\Internal\Push;
use Bobbin\Redis\Internal\RespEncoder;
use Bobbin\Redis\Internal\Socket;
use Bobbin\Redis\Internal\SubscriberInbox;

/**
 * Pub/sub on a connection of its own: channels (SUBSCRIBE), patterns (PSUBSCRIBE) and shard
 * channels (SSUBSCRIBE), their messages delivered in order to receive().
 *
 * The reader takes everything the socket has at each wake-up into an inbox of the client's own
 * (SubscriberInbox), so that a burst waits here rather than on the server, whose
 * `client-output-buffer-limit pubsub` (32 MB by default) closes a subscriber that lets it pile
 * up there; published messages are parsed in one pass, in batches, and receive() takes them
 * without a fiber switch. Every PULL_EVERY messages receive() also pulls in what has arrived,
 * for an application that handles messages without ever letting the reader run. The inbox is
 * bounded ($maxQueuedBytes: bytes on the wire plus ~200 per parsed message): past it the reader
 * stops reading, the server buffers, and if the server then closes the connection,
 * MessagesMissed says that the application fell behind.
 *
 * A reader fiber owns the connection. When it is lost (a restart, CLIENT KILL, a silent peer
 * caught by the PING every $pingInterval seconds of silence) the reader reconnects with a backoff,
 * subscribes every channel, pattern and shard channel again, and then delivers MessagesMissed:
 * what was published in between is gone. close() ends it. Commands leave through an
 * Async\EndOfTurnWriter (as on Redis\Connection): at once, and what the kernel does not take is
 * written by the writer's fiber; a broken write closes the socket, which wakes the reader.
 *
 * Over 400 lines: subscribe/unsubscribe by channel and pattern, the inbox's bound and the
 * resubscription after a reconnect are one state machine.
 */
final class Subscriber
{
    use OwnsResources;

    private const BACKOFF_FIRST = 0.05;
    private const BACKOFF_MAX = 2.0;
    /** What one wake-up of the reader reads at most before parsing it (then it reads on). */
    private const READ_PASS = 1024 * 1024;
    /** receive() looks for bytes that arrived meanwhile once per this many messages (one recv()). */
    private const PULL_EVERY = 128;

    /** @var array<string, true> */
    private array $channels = [];
    /** @var array<string, true> */
    private array $patterns = [];
    /** @var array<string, true> */
    private array $shardChannels = [];
    private SubscriberInbox $inbox;
    private Socket $socket;
    private readonly EndOfTurnWriter $writer;
    private bool $closed = false;
    /** Subscription confirmations still due, and who waits for them. */
    private int $unconfirmed = 0;
    /** @var DeferredFuture<null>|null */
    private ?DeferredFuture $confirmed = null;
    private bool $pingSent = false;
    private int $reconnects = 0;
    /** @var array<int, SubscriptionEvent> the batch receive() takes from, and the next in it */
    private array $taking = [];
    private int $next = 0;
    /** Whether the reader waits for bytes in its steady state: receive() may then pull them in. */
    private bool $readerIdle = false;
    private int $untilPull = self::PULL_EVERY;
    /** What went wrong while receive() parsed the backlog: the reader's reason to reconnect. */
    private ?\Throwable $parseFailure = null;
    /** Whether the inbox was full on this connection: the reason a server's close then gets. */
    private bool $fellBehind = false;

    private function __construct(private readonly ConnectionConfig $config, private readonly float $pingInterval, int $maxQueuedBytes)
    {
        // The writer has detached itself; closing the socket wakes the reader, which reconnects.
        $this->writer = new EndOfTurnWriter(function (): void {
            $this->socket->close();
        });
        $this->inbox = new SubscriberInbox($maxQueuedBytes, $this->handle(...), $this->parseFailed(...));
    }

    /**
     * @internal use Client::subscribe()
     * @param list<string> $channels
     * @param list<string> $patterns
     * @param list<string> $shardChannels
     */
    public static function open(ConnectionConfig $config, array $channels, array $patterns, array $shardChannels, ?Cancellation $cancellation = null, float $pingInterval = 30.0, int $maxQueuedBytes = 64 * 1024 * 1024): self
    {
        $subscriber = new self($config, $pingInterval, $maxQueuedBytes);
        $subscriber->channels = \array_fill_keys($channels, true);
        $subscriber->patterns = \array_fill_keys($patterns, true);
        $subscriber->shardChannels = \array_fill_keys($shardChannels, true);
        $subscriber->connect($cancellation);
        Async::run($subscriber->read(...))->ignore();

        return $subscriber;
    }

    /**
     * The next message (or MessagesMissed after a reconnect), waiting as long as it takes.
     *
     * @throws RedisException when the subscriber is closed|CancelledException
     */
    public function receive(?Cancellation $cancellation = null): SubscriptionEvent
    {
        if (--$this->untilPull === 0) {
            $this->untilPull = self::PULL_EVERY;
            $this->pull();
        }

        return $this->taking[$this->next++] ?? $this->takeNext($cancellation);
    }

    /** @throws RedisException when the subscriber is closed|CancelledException */
    private function takeNext(?Cancellation $cancellation): SubscriptionEvent
    {
        $this->taking = [];
        $this->next = 0;
        $this->taking = $this->inbox->takeBatch($cancellation);
        $this->next = 1;

        return $this->taking[0];
    }

    /** @param list<string> $channels */
    public function subscribe(array $channels, ?Cancellation $cancellation = null): void
    {
        $this->change('SUBSCRIBE', $channels, $this->channels, true, $cancellation);
    }

    /** @param list<string> $patterns */
    public function psubscribe(array $patterns, ?Cancellation $cancellation = null): void
    {
        $this->change('PSUBSCRIBE', $patterns, $this->patterns, true, $cancellation);
    }

    /** @param list<string> $channels */
    public function ssubscribe(array $channels, ?Cancellation $cancellation = null): void
    {
        $this->change('SSUBSCRIBE', $channels, $this->shardChannels, true, $cancellation);
    }

    /** @param list<string> $channels */
    public function unsubscribe(array $channels): void
    {
        $this->change('UNSUBSCRIBE', $channels, $this->channels, false, null);
    }

    /** @param list<string> $patterns */
    public function punsubscribe(array $patterns): void
    {
        $this->change('PUNSUBSCRIBE', $patterns, $this->patterns, false, null);
    }

    /** @param list<string> $channels */
    public function sunsubscribe(array $channels): void
    {
        $this->change('SUNSUBSCRIBE', $channels, $this->shardChannels, false, null);
    }

    /** @return array{channels: list<string>, patterns: list<string>, shardChannels: list<string>} */
    public function subscriptions(): array
    {
        return [
            'channels' => \array_map('strval', \array_keys($this->channels)),
            'patterns' => \array_map('strval', \array_keys($this->patterns)),
            'shardChannels' => \array_map('strval', \array_keys($this->shardChannels)),
        ];
    }

    /** How often the connection was lost and opened again. */
    public function reconnects(): int
    {
        return $this->reconnects;
    }

    /** Ends the subscription: receive() throws once the messages already delivered are taken. */
    public function close(): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        $this->closeSocket($this->socket);
        $this->inbox->close();
        $this->confirmed?->fail(new RedisException('The subscriber was closed'));
        $this->confirmed = null;
    }

    public function isClosed(): bool
    {
        return $this->closed;
    }

    /**
     * @param list<string> $names
     * @param array<string, true> $set
     */
    private function change(string $command, array $names, array &$set, bool $add, ?Cancellation $cancellation): void
    {
        if ($this->closed) {
            throw new RedisException('The subscriber is closed');
        }
        if ($names === []) {
            return;
        }
        foreach ($names as $name) {
            if ($add) {
                $set[$name] = true;
            } else {
                unset($set[$name]);
            }
        }
        if ($add) {
            $this->unconfirmed += \count($names);
            $this->confirmed ??= new DeferredFuture();
            $confirmed = $this->confirmed;
        }
        if (!$this->socket->isClosed()) {
            $this->writer->write(RespEncoder::command([$command, ...$names]));
        }
        if ($this->socket->isClosed()) {
            return; // the reader reconnects and subscribes everything in $set
        }
        if ($add) {
            $confirmed->future()->await($cancellation);
        }
    }

    /** Opens the connection and subscribes everything, reading until each subscription is confirmed. */
    private function connect(?Cancellation $cancellation): void
    {
        $timeout = new TimeoutCancellation($this->config->connectTimeout);
        $bound = $cancellation === null ? $timeout : new CompositeCancellation($cancellation, $timeout);
        try {
            $socket = Socket::open($this->config, \microtime(true) + $this->config->connectTimeout, $bound);
            try {
                $handshake = Handshake::perform($socket, $this->config, $bound);
                $this->socket = $socket;
                $socket->attachWriter($this->writer);
                $this->inbox->useParser($handshake->parser);
                $out = '';
                foreach (['SUBSCRIBE' => $this->channels, 'PSUBSCRIBE' => $this->patterns, 'SSUBSCRIBE' => $this->shardChannels] as $command => $set) {
                    if ($set !== []) {
                        $out .= RespEncoder::command([$command, ...\array_map('strval', \array_keys($set))]);
                    }
                }
                $this->unconfirmed = \count($this->channels) + \count($this->patterns) + \count($this->shardChannels);
                $this->pingSent = false;
                $this->fellBehind = false;
                $this->parseFailure = null;
                if ($out !== '') {
                    $this->writer->write($out);
                }
                while ($this->unconfirmed > 0) {
                    $this->readOnce($bound);
                }
            } catch (\Throwable $e) {
                $this->closeSocket($socket);
                throw $e;
            }
        } catch (CancelledException $e) {
            if ($cancellation !== null && $cancellation->isRequested()) {
                throw $e;
            }
            throw new Exception\ConnectTimeoutException(\sprintf('Subscribing on Redis (%s) took longer than %.3f s', $this->config->describe(), $this->config->connectTimeout));
        } finally {
            $timeout->dispose();
        }
    }

    /** The reader fiber: messages to the channel, and reconnection when the connection is lost. */
    private function read(): void
    {
        while (!$this->closed) {
            try {
                if ($this->inbox->isFull()) {
                    $this->fellBehind = true;
                    $this->inbox->awaitRoom();
                }
                $this->readOnce(null);
            } catch (\Throwable $e) {
                if ($this->isClosed()) {
                    return;
                }
                $this->inbox->drain(); // what came before the loss is delivered before MessagesMissed
                $this->reconnect($this->parseFailure ?? $e);
            }
        }
    }

    private function reconnect(\Throwable $error): void
    {
        $lostAt = \microtime(true);
        $reason = $error->getMessage();
        if ($this->fellBehind) {
            $reason .= \sprintf(
                ' after the application fell behind: %d MiB of messages waited unread in the subscriber (its bound, maxQueuedBytes) and more on the server, whose client-output-buffer-limit pubsub closes such a subscriber',
                \intdiv($this->inbox->maxBytes, 1024 * 1024),
            );
        }
        $this->closeSocket($this->socket);
        $delay = self::BACKOFF_FIRST;
        while (!$this->closed) {
            try {
                $this->connect(null);
                $this->reconnects++;
                $this->inbox->add([new MessagesMissed($lostAt, \microtime(true), $reason)], 0);

                return;
            } catch (\Throwable) {
                Async::delay($delay);
                $delay = \min(self::BACKOFF_MAX, $delay * 2);
            }
        }
    }

    /** Reads what the socket has (waiting up to the ping interval for something) and handles it. */
    private function readOnce(?Cancellation $bound): void
    {
        $bytes = $this->socket->read();
        if ($bytes === '') {
            $silence = new TimeoutCancellation($this->pingInterval);
            $this->readerIdle = $bound === null;
            try {
                $this->socket->awaitReadable($bound === null ? $silence : new CompositeCancellation($bound, $silence));
            } catch (CancelledException $e) {
                $this->readerIdle = false;
                if ($bound !== null && $bound->isRequested()) {
                    throw $e;
                }
                if ($this->pingSent) {
                    throw new ConnectionLostException(\sprintf('Redis (%s) did not answer a PING within %.0f s', $this->config->describe(), $this->pingInterval));
                }
                $this->pingSent = true;
                $this->writer->write(RespEncoder::command(['PING']));

                return;
            } finally {
                $this->readerIdle = false;
                $silence->dispose();
            }
            $bytes = $this->socket->read();
        }
        if ($bytes === null) {
            throw new ConnectionLostException(\sprintf('Redis (%s) closed the subscriber\'s connection', $this->config->describe()));
        }
        if ($bytes === '') {
            return;
        }
        $this->readOn($bytes, $bound !== null);
    }

    /**
     * Hands $bytes to the inbox and reads on while the socket has more, up to READ_PASS: each
     * read a chunk of its own (joining them would copy every byte once more). A read shorter
     * than a whole chunk emptied the socket: no further read to learn that. The end of the
     * stream is left for the next read.
     */
    private function readOn(string $bytes, bool $connecting): void
    {
        $this->pingSent = false;
        $total = 0;
        while (true) {
            $this->inbox->receive($bytes, $connecting || $this->unconfirmed > 0);
            $total += \strlen($bytes);
            if (\strlen($bytes) !== Socket::READ_CHUNK || $total >= self::READ_PASS) {
                return;
            }
            $bytes = $this->socket->read();
            if ($bytes === null || $bytes === '') {
                return;
            }
        }
    }

    /**
     * From receive(), every PULL_EVERY messages: what arrived meanwhile joins the inbox, so that
     * it waits here rather than on the server. Only while the reader waits for bytes (not while
     * it connects, nor when the inbox is full); the end of the stream is left for the reader.
     */
    private function pull(): void
    {
        if (!$this->readerIdle || $this->closed || $this->inbox->isFull()) {
            return;
        }
        $bytes = $this->socket->read();
        if ($bytes !== null && $bytes !== '') {
            $this->readOn($bytes, false);
        }
    }

    /** A reply receive() parsed from the backlog failed: the reader reconnects with this reason. */
    private function parseFailed(\Throwable $error): void
    {
        $this->parseFailure = $error;
        $this->closeSocket($this->socket); // wakes the reader
    }

    private function handle(mixed $reply): void
    {
        $items = $reply instanceof Push ? $reply->items : $reply;
        if (!\is_array($items) || !isset($items[0]) || !\is_string($items[0])) {
            if ($reply instanceof Internal\ErrorReply) {
                throw new Exception\CommandException($reply->message, $reply->prefix(), 'SUBSCRIBE');
            }

            return; // a PONG
        }
        switch (\strtolower($items[0])) {
            case 'message':
                $this->inbox->add([new Message((string) $items[1], (string) $items[2])], SubscriberInbox::OVERHEAD);
                break;
            case 'pmessage':
                $this->inbox->add([new Message((string) $items[2], (string) $items[3], (string) $items[1])], SubscriberInbox::OVERHEAD);
                break;
            case 'smessage':
                $this->inbox->add([new Message((string) $items[1], (string) $items[2], null, true)], SubscriberInbox::OVERHEAD);
                break;
            case 'subscribe':
            case 'psubscribe':
            case 'ssubscribe':
                if ($this->unconfirmed > 0 && --$this->unconfirmed === 0 && $this->confirmed !== null) {
                    $confirmed = $this->confirmed;
                    $this->confirmed = null;
                    $confirmed->complete(null);
                }
                break;
            default:
                break; // unsubscribe confirmations, a RESP2 PING's ["pong", ""]
        }
    }

    /** What was not written yet is dropped with the socket: a new connection subscribes everything anew. */
    private function closeSocket(Socket $socket): void
    {
        $this->writer->fail(new ConnectionLostException('The subscriber\'s connection was closed'));
        $socket->close();
    }
}
