<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Contract;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\CancellationSource;
use Bobbin\Nats\Connection;
use Bobbin\Nats\ConnectionConfig;
use Bobbin\Nats\Exception\ConnectionLostException;
use Bobbin\Nats\Message;
use Bobbin\Tests\Support\Nats\EmbeddedNats;
use Bobbin\Tests\Support\Nats\NatsServer;

/**
 * The NATS client's request–reply: the "server" whose state the tests look at is a responder on
 * a connection of its own, which records the keys of the writes it handled. NATS has no pool: the
 * "pooled" calls are requests on the one connection. The one for endSessionsRunning() runs on a
 * nats-server of its own (private()), stopped and started again on the same port.
 */
final class NatsUnderTest implements ClientUnderTest
{
    private readonly Connection $client;
    private readonly Connection $responder;
    private readonly string $prefix;
    private readonly CancellationSource $stop;
    /** @var array<string, true> keys of the writes the responder handled */
    private array $handled = [];

    public function __construct(private readonly ?NatsServer $server = null)
    {
        $url = $server === null ? EmbeddedNats::url() : $server->url();
        $this->prefix = 'contract.' . \bin2hex(\random_bytes(5));
        $this->stop = new CancellationSource();
        $this->responder = Connection::connect(ConnectionConfig::fromUrl($url, maxReconnectWait: 0.2));
        $subscription = $this->responder->subscribe($this->prefix . '.>');
        $this->responder->flush();
        Async::run(function () use ($subscription): void {
            try {
                while (!$this->stop->isRequested()) {
                    $message = $subscription->next(null, $this->stop->token());
                    Async::run(fn () => $this->answer($message))->ignore();
                }
            } catch (\Throwable) {
                // Stopped or closed: the responder is gone.
            }
        })->ignore();
        $this->client = Connection::connect(ConnectionConfig::fromUrl($url, maxReconnectWait: 0.2));
    }

    /** One on a nats-server of its own, which endSessionsRunning() stops and starts again. */
    public static function private(): self
    {
        return new self(NatsServer::start(jetStream: false));
    }

    public function write(string $key, ?Cancellation $cancellation = null): void
    {
        $this->client->request("{$this->prefix}.write.$key", '', null, null, $cancellation);
    }

    public function written(string $key): bool
    {
        // Whatever the client sent has reached the server, and the server has handed it on.
        $this->client->flush();
        $this->responder->flush();
        Async::delay(0.05);

        return isset($this->handled[$key]);
    }

    public function echo(string $value, ?Cancellation $cancellation = null): string
    {
        return $this->client->request("{$this->prefix}.echo", $value, null, null, $cancellation)->payload;
    }

    public function sleep(float $seconds, ?Cancellation $cancellation = null): void
    {
        $this->client->request("{$this->prefix}.sleep", (string) $seconds, $seconds + 5.0, null, $cancellation);
    }

    public function slowWrite(string $key, float $seconds, ?Cancellation $cancellation = null): void
    {
        $this->client->request("{$this->prefix}.slowwrite.$key", (string) $seconds, $seconds + 5.0, null, $cancellation);
    }

    public function endSessionsRunning(string $key): void
    {
        if ($this->server === null) {
            throw new \LogicException('Only a NatsUnderTest::private() can end its sessions');
        }
        $this->server->restart();
        // The responder stands for the server's side: back, and subscribed again, before the
        // test asks anything (else a request that reconnected first finds no responder).
        $deadline = \microtime(true) + 5.0;
        while (true) {
            try {
                $this->responder->flush(1.0);

                return;
            } catch (ConnectionLostException $e) {
                // The PING went out before the responder saw the old connection end: once more.
                if (\microtime(true) > $deadline) {
                    throw $e;
                }
            }
        }
    }

    public function close(): void
    {
        $this->stop->cancel();
        $this->client->close();
        $this->responder->close();
        $this->server?->remove();
    }

    private function answer(Message $message): void
    {
        $parts = \explode('.', \substr($message->subject, \strlen($this->prefix) + 1), 2);
        if ($parts[0] === 'sleep' || $parts[0] === 'slowwrite') {
            Async::delay((float) $message->payload);
        }
        if ($parts[0] === 'write' || $parts[0] === 'slowwrite') {
            $this->handled[$parts[1] ?? ''] = true;
        }
        if ($message->replyTo !== null && !$this->stop->isRequested()) {
            $this->responder->publish($message->replyTo, $parts[0] === 'echo' ? $message->payload : 'ok');
        }
    }
}
