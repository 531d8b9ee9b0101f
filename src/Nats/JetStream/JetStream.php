<?php

declare(strict_types=1);

namespace Bobbin\Nats\JetStream;

use Bobbin\Async\Cancellation;
use Bobbin\Nats\Connection;
use Bobbin\Nats\Exception\NoRespondersException;
use Bobbin\Nats\Headers;
use Bobbin\Nats\Message;

/**
 * JetStream over its JSON API ($JS.API.…, request–reply on the connection): streams, durable pull
 * consumers, publishing with an acknowledgement (and a message id for de-duplication), and pull
 * consumers to fetch with.
 */
final class JetStream
{
    public function __construct(private readonly Connection $connection, private readonly string $apiPrefix = '$JS.API', private readonly float $timeout = 5.0)
    {
    }

    /** @return array<string, mixed> the stream's info (config, state) */
    public function createStream(StreamConfig $config, ?Cancellation $cancellation = null): array
    {
        return $this->api('STREAM.CREATE.' . $config->name, $config->toArray(), $cancellation);
    }

    /** @return array<string, mixed> */
    public function updateStream(StreamConfig $config, ?Cancellation $cancellation = null): array
    {
        return $this->api('STREAM.UPDATE.' . $config->name, $config->toArray(), $cancellation);
    }

    /**
     * Creates the stream, or updates it to $config when it exists with other settings.
     *
     * @return array<string, mixed>
     */
    public function ensureStream(StreamConfig $config, ?Cancellation $cancellation = null): array
    {
        try {
            return $this->createStream($config, $cancellation);
        } catch (JetStreamException $error) {
            if ($error->errorCode !== JetStreamException::STREAM_NAME_IN_USE) {
                throw $error;
            }

            return $this->updateStream($config, $cancellation);
        }
    }

    /** @return array<string, mixed> */
    public function streamInfo(string $name, ?Cancellation $cancellation = null): array
    {
        return $this->api('STREAM.INFO.' . $name, null, $cancellation);
    }

    public function deleteStream(string $name, ?Cancellation $cancellation = null): void
    {
        $this->api('STREAM.DELETE.' . $name, null, $cancellation);
    }

    public function purgeStream(string $name, ?Cancellation $cancellation = null): void
    {
        $this->api('STREAM.PURGE.' . $name, null, $cancellation);
    }

    /**
     * Creates a durable pull consumer on $stream (the same settings again is no error).
     *
     * @return array<string, mixed> the consumer's info
     */
    public function createConsumer(string $stream, ConsumerConfig $config, ?Cancellation $cancellation = null): array
    {
        return $this->api(
            \sprintf('CONSUMER.DURABLE.CREATE.%s.%s', $stream, $config->durableName),
            ['stream_name' => $stream, 'config' => $config->toArray()],
            $cancellation,
        );
    }

    /** @return array<string, mixed> */
    public function consumerInfo(string $stream, string $consumer, ?Cancellation $cancellation = null): array
    {
        return $this->api(\sprintf('CONSUMER.INFO.%s.%s', $stream, $consumer), null, $cancellation);
    }

    public function deleteConsumer(string $stream, string $consumer, ?Cancellation $cancellation = null): void
    {
        $this->api(\sprintf('CONSUMER.DELETE.%s.%s', $stream, $consumer), null, $cancellation);
    }

    /**
     * Publishes to a stream's subject and waits for the stream's receipt: when this returns, the
     * message is stored. With $messageId, a second publish of the same id within the stream's
     * duplicate window stores nothing and says so (PubAck::$duplicate).
     *
     * @throws JetStreamException no stream takes $subject, or the stream refused the message
     */
    public function publish(string $subject, string $payload, ?string $messageId = null, ?Headers $headers = null, ?float $timeout = null, ?Cancellation $cancellation = null): PubAck
    {
        if ($messageId !== null) {
            $headers = ($headers ?? Headers::of([]))->with('Nats-Msg-Id', $messageId);
        }
        try {
            $reply = $this->connection->request($subject, $payload, $timeout ?? $this->timeout, $headers, $cancellation);
        } catch (NoRespondersException $none) {
            throw new JetStreamException(\sprintf('No stream takes the subject %s (or JetStream is not enabled)', $subject), 503, 0, $none);
        }
        $answer = $this->decode($reply, 'publish to ' . $subject);

        return new PubAck((string) ($answer['stream'] ?? ''), (int) ($answer['seq'] ?? 0), ($answer['duplicate'] ?? false) === true);
    }

    public function pullConsumer(string $stream, string $consumer): PullConsumer
    {
        return new PullConsumer($this->connection, $stream, $consumer, $this->apiPrefix);
    }

    /**
     * @param array<string, mixed>|null $body
     * @return array<string, mixed>
     * @throws JetStreamException
     */
    private function api(string $call, ?array $body, ?Cancellation $cancellation): array
    {
        $payload = $body === null ? '' : \json_encode($body, \JSON_THROW_ON_ERROR | \JSON_UNESCAPED_SLASHES);
        try {
            $reply = $this->connection->request($this->apiPrefix . '.' . $call, $payload, $this->timeout, null, $cancellation);
        } catch (NoRespondersException $none) {
            throw new JetStreamException('JetStream is not enabled on this server (nobody answers ' . $this->apiPrefix . ')', 503, 0, $none);
        }

        return $this->decode($reply, $call);
    }

    /**
     * @return array<string, mixed>
     * @throws JetStreamException
     */
    private function decode(Message $reply, string $what): array
    {
        try {
            $answer = \json_decode($reply->payload, true, 64, \JSON_THROW_ON_ERROR);
        } catch (\JsonException $error) {
            throw new JetStreamException(\sprintf('JetStream answered %s with something that is not JSON: %s', $what, $error->getMessage()));
        }
        if (!\is_array($answer)) {
            throw new JetStreamException(\sprintf('JetStream answered %s with something that is not a JSON object', $what));
        }
        $error = $answer['error'] ?? null;
        if (\is_array($error)) {
            throw new JetStreamException(
                \sprintf('JetStream refused %s: %s', $what, \is_string($error['description'] ?? null) ? $error['description'] : 'unknown error'),
                \is_int($error['code'] ?? null) ? $error['code'] : 0,
                \is_int($error['err_code'] ?? null) ? $error['err_code'] : 0,
            );
        }

        /** @var array<string, mixed> $answer */
        return $answer;
    }
}
