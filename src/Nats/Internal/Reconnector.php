<?php

declare(strict_types=1);

namespace Bobbin\Nats\Internal;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Bobbin\Nats\ConnectionConfig;
use Bobbin\Nats\Exception\ConnectionLostException;
use Bobbin\Nats\Exception\NatsException;

/**
 * Connects again after the socket broke: a jittered wait that doubles after each failed attempt
 * (from ConnectionConfig::$reconnectWait up to $maxReconnectWait), up to $maxReconnectAttempts.
 *
 * @internal
 */
final class Reconnector
{
    private function __construct()
    {
    }

    /**
     * A new session, or null when $closing was cancelled meanwhile (the connection was closed).
     *
     * @throws ConnectionLostException when it gave up
     */
    public static function reconnect(ConnectionConfig $config, Cancellation $closing): ?Handshake
    {
        $wait = $config->reconnectWait;
        $attempts = 0;
        $lastError = null;
        while ($config->maxReconnectAttempts < 0 || $attempts < $config->maxReconnectAttempts) {
            $attempts++;
            try {
                Async::delay($wait * (0.75 + \mt_rand() / \mt_getrandmax() / 2), $closing);

                return Handshake::perform($config, $closing);
            } catch (CancelledException) {
                return null;
            } catch (NatsException $error) {
                $lastError = $error;
                $wait = \min($config->maxReconnectWait, $wait * 2);
            }
        }

        throw new ConnectionLostException(\sprintf('Gave up reconnecting to NATS (%s) after %d attempts: %s', $config->describe(), $attempts, $lastError?->getMessage() ?? 'no attempt'));
    }
}
