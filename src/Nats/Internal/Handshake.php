<?php

declare(strict_types=1);

namespace Bobbin\Nats\Internal;

use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Bobbin\Async\CompositeCancellation;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Nats\ConnectionConfig;
use Bobbin\Nats\Exception\AuthorizationException;
use Bobbin\Nats\Exception\ConnectException;
use Bobbin\Nats\Exception\ConnectTimeoutException;
use Bobbin\Nats\Exception\NatsException;
use Bobbin\Nats\Message;

/**
 * Opens a connection up to the point where it can be used: TCP, the server's INFO, TLS when
 * either side wants it, CONNECT with the credentials, then PING and the PONG that proves the
 * server accepted them (an -ERR instead names the refusal). Bounded by the connect timeout.
 *
 * @internal
 */
final class Handshake
{
    public const CLIENT_VERSION = '1.0.0';

    /** @var array<string, mixed> */
    public array $info = [];

    private function __construct(public readonly Socket $socket, public readonly ProtocolParser $parser)
    {
    }

    /** @throws ConnectException|CancelledException */
    public static function perform(ConnectionConfig $config, ?Cancellation $cancellation): self
    {
        $limit = new TimeoutCancellation($config->connectTimeout, 'The connect timed out');
        $both = $cancellation === null ? $limit : new CompositeCancellation($cancellation, $limit);
        $deadline = \microtime(true) + $config->connectTimeout;
        $socket = null;
        try {
            $socket = Socket::open($config, $deadline, $both);
            $handshake = new self($socket, new ProtocolParser($config->maxPayload));
            $handshake->run($config, $deadline, $both);

            return $handshake;
        } catch (CancelledException $cancelled) {
            $socket?->close();
            if ($cancellation !== null && $cancellation->isRequested()) {
                throw $cancelled;
            }
            throw new ConnectTimeoutException(\sprintf('Connecting to NATS (%s) timed out after %.1f s', $config->describe(), $config->connectTimeout), 0, $cancelled);
        } catch (NatsException $error) {
            $socket?->close();
            if ($error instanceof ConnectException) {
                throw $error;
            }
            throw new ConnectException(\sprintf('Connecting to NATS (%s) failed: %s', $config->describe(), $error->getMessage()), 0, $error);
        } finally {
            $limit->dispose();
        }
    }

    /** @throws NatsException|CancelledException */
    private function run(ConnectionConfig $config, float $deadline, Cancellation $cancellation): void
    {
        $first = $this->nextFrame($deadline, $cancellation);
        if (!$first instanceof ServerFrame || $first->kind !== FrameKind::Info) {
            throw new ConnectException(\sprintf('NATS (%s) did not greet with INFO: is it a NATS server?', $config->describe()));
        }
        $this->info = $first->info;
        $serverWantsTls = ($this->info['tls_required'] ?? false) === true;
        if ($config->tls && !$serverWantsTls && ($this->info['tls_available'] ?? false) !== true) {
            throw new ConnectException(\sprintf('TLS was asked for, but NATS (%s) does not offer it', $config->describe()));
        }
        if ($config->tls || $serverWantsTls) {
            $this->socket->startTls($config, $deadline, $cancellation);
        }
        $options = [
            'verbose' => false,
            'pedantic' => false,
            'tls_required' => $config->tls || $serverWantsTls,
            'name' => $config->name,
            'lang' => 'php',
            'version' => self::CLIENT_VERSION,
            'protocol' => 1,
            'echo' => $config->echo,
            'headers' => true,
            'no_responders' => true,
        ];
        if ($config->token !== null) {
            $options['auth_token'] = $config->token;
        } elseif ($config->user !== null) {
            $options['user'] = $config->user;
            $options['pass'] = $config->password ?? '';
        }
        $this->writeAll(Commands::connect($options) . Commands::PING, $deadline, $cancellation);
        while (true) {
            $frame = $this->nextFrame($deadline, $cancellation);
            if ($frame instanceof Message) {
                continue;
            }
            switch ($frame->kind) {
                case FrameKind::Pong:
                    return;
                case FrameKind::Ping:
                    $this->writeAll(Commands::PONG, $deadline, $cancellation);
                    break;
                case FrameKind::Info:
                    $this->info = $frame->info + $this->info;
                    break;
                case FrameKind::Err:
                    if (\stripos($frame->error, 'authorization') !== false || \stripos($frame->error, 'authentication') !== false) {
                        throw new AuthorizationException(\sprintf('NATS (%s) refused the credentials: %s', $config->describe(), $frame->error));
                    }
                    throw new ConnectException(\sprintf('NATS (%s) refused the connection: %s', $config->describe(), $frame->error));
                case FrameKind::Ok:
                    break;
            }
        }
    }

    /** @throws NatsException|CancelledException */
    private function nextFrame(float $deadline, Cancellation $cancellation): Message|ServerFrame
    {
        while (($frame = $this->parser->next()) === null) {
            $this->socket->awaitReadable(\max(0.0, $deadline - \microtime(true)), $cancellation);
            $this->parser->append($this->socket->read());
        }

        return $frame;
    }

    /** @throws NatsException|CancelledException */
    private function writeAll(string $bytes, float $deadline, Cancellation $cancellation): void
    {
        while ($bytes !== '') {
            $written = $this->socket->write($bytes);
            $bytes = \substr($bytes, $written);
            if ($bytes !== '') {
                $this->socket->awaitWritable(\max(0.0, $deadline - \microtime(true)), $cancellation);
            }
        }
    }
}
