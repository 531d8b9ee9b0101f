<?php

declare(strict_types=1);

namespace Bobbin\Nats\JetStream;

use Bobbin\Nats\Exception\NatsException;

/**
 * JetStream's API answered with an error: $code is its HTTP-like status (400, 404, 503…),
 * $errorCode JetStream's own (10059: stream not found, 10014: consumer not found, 10058: stream
 * name already in use with another configuration…).
 */
final class JetStreamException extends NatsException
{
    public const STREAM_NOT_FOUND = 10059;
    public const CONSUMER_NOT_FOUND = 10014;
    public const STREAM_NAME_IN_USE = 10058;

    public function __construct(string $message, public readonly int $status = 0, public readonly int $errorCode = 0, ?\Throwable $previous = null)
    {
        parent::__construct($message, $errorCode, $previous);
    }
}
