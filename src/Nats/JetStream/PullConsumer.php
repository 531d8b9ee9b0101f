<?php

declare(strict_types=1);

namespace Bobbin\Nats\JetStream;

use Bobbin\Async\Cancellation;
use Bobbin\Async\OwnsResources;
use Bobbin\Async\TimeoutException;
use Bobbin\Nats\Connection;
use Bobbin\Nats\Exception\ProtocolException;
use Bobbin\Nats\Subscription;

/**
 * Fetches messages of a durable pull consumer in batches: a pull request (CONSUMER.MSG.NEXT) with
 * this puller's own inbox subscription as its reply subject, then the messages as they come until the batch is
 * full or the server says there are no more (404) or the request expired (408). close() when done.
 */
final class PullConsumer
{
    use OwnsResources;

    private const MARGIN_SECONDS = 1.0;

    private readonly Subscription $inbox;
    private readonly string $nextSubject;

    public function __construct(
        private readonly Connection $connection,
        public readonly string $stream,
        public readonly string $consumer,
        string $apiPrefix = '$JS.API',
    ) {
        // A subscription of its own, not the shared request inbox: JetStream delivers with the
        // message's own subject in MSG, so only the subscription id says where it belongs.
        $this->inbox = $connection->subscribe($connection->newInbox());
        $this->nextSubject = \sprintf('%s.CONSUMER.MSG.NEXT.%s.%s', $apiPrefix, $stream, $consumer);
    }

    /**
     * Up to $batch messages, waiting up to $expires seconds for them (0: only what is there now).
     * Fewer (or none) when the wait ends first. Each message is in it once: when $expires exceeds
     * the consumer's ack wait the server may deliver one again while the batch is still open,
     * and the batch then holds its latest delivery (its redelivery count grown; acking the
     * earlier one would not count). A batch that spans the ack wait still hands out messages
     * whose wait is over: keep $expires below the ack wait, or ack in progress meanwhile.
     *
     * @return list<JetStreamMessage>
     * @throws JetStreamException|\Bobbin\Nats\Exception\ConnectionLostException|\Bobbin\Async\CancelledException
     */
    public function fetch(int $batch = 1, float $expires = 5.0, ?Cancellation $cancellation = null): array
    {
        if ($batch < 1) {
            throw new \InvalidArgumentException('A fetch asks for at least one message');
        }
        $request = $expires > 0.0 ? ['batch' => $batch, 'expires' => (int) ($expires * 1e9)] : ['batch' => $batch, 'no_wait' => true];
        $this->connection->publish($this->nextSubject, \json_encode($request, \JSON_THROW_ON_ERROR), null, $this->inbox->subject, $cancellation);
        $deadline = \microtime(true) + $expires + self::MARGIN_SECONDS;
        /** @var array<int, JetStreamMessage> $messages by stream sequence */
        $messages = [];
        while (\count($messages) < $batch) {
            try {
                $message = $this->inbox->next(\max(0.0, $deadline - \microtime(true)), $cancellation);
            } catch (TimeoutException) {
                break;
            }
            $status = $message->status();
            if ($status === null) {
                $metadata = AckMetadata::parse((string) $message->replyTo);
                if ($metadata === null) {
                    throw new ProtocolException(\sprintf('A message from the consumer %s without JetStream\'s ack subject: %s', $this->consumer, \json_encode($message->replyTo)));
                }
                // A batch open past the ack wait gets a message again (redelivered to the same
                // pull request): once in the batch, as its latest delivery, the one whose ack counts.
                $messages[$metadata->streamSequence] = new JetStreamMessage($message, $metadata, $this->connection);
                continue;
            }
            if ($status === 100) {
                continue; // an idle heartbeat
            }
            if ($status === 404 || $status === 408) {
                break; // nothing (more) now, or this pull request expired
            }
            if ($messages === []) {
                throw new JetStreamException(\sprintf('Fetching from %s > %s failed: %d %s', $this->stream, $this->consumer, $status, (string) $message->headers?->description), $status);
            }
            break;
        }

        return \array_values($messages);
    }

    public function close(): void
    {
        $this->inbox->unsubscribe();
    }
}
