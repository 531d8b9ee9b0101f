<?php

declare(strict_types=1);

namespace Bobbin\Redis\Internal;

use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Bobbin\Async\CompositeCancellation;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Redis\ConnectionConfig;
use Bobbin\Redis\Exception\ConnectException;
use Bobbin\Redis\Exception\ConnectionLostException;
use Bobbin\Redis\Exception\ConnectTimeoutException;
use Bobbin\Redis\Exception\ProtocolException;

/**
 * Opens a Redis session without blocking the loop: socket, TLS, HELLO (AUTH, SETNAME), SELECT,
 * within the connect timeout and the caller's cancellation; the errors a caller acts on
 * (ConnectException, ConnectTimeoutException, its own cancellation). Connection::connect()'s
 * rare path, kept out of the class that carries every command.
 *
 * @internal
 */
final class SessionOpener
{
    private function __construct()
    {
    }

    /**
     * @return array{Socket, Handshake}
     * @throws ConnectException|ConnectTimeoutException|CancelledException
     */
    public static function open(ConnectionConfig $config, ?Cancellation $cancellation): array
    {
        $cancellation?->throwIfRequested();
        $timeout = new TimeoutCancellation($config->connectTimeout);
        $bound = $cancellation === null ? $timeout : new CompositeCancellation($cancellation, $timeout);
        try {
            $socket = Socket::open($config, \microtime(true) + $config->connectTimeout, $bound);
            try {
                return [$socket, Handshake::perform($socket, $config, $bound)];
            } catch (\Throwable $e) {
                $socket->close();
                throw $e;
            }
        } catch (CancelledException $e) {
            if ($cancellation !== null && $cancellation->isRequested()) {
                throw $e;
            }
            throw new ConnectTimeoutException(\sprintf('Connecting to Redis (%s) took longer than %.3f s', $config->describe(), $config->connectTimeout));
        } catch (ConnectionLostException|ProtocolException $e) {
            throw new ConnectException(\sprintf('Cannot connect to Redis (%s): %s', $config->describe(), $e->getMessage()), 0, $e);
        } finally {
            $timeout->dispose();
        }
    }
}
