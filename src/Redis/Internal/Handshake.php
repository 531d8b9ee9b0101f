<?php

declare(strict_types=1);

namespace Bobbin\Redis\Internal;

use Bobbin\Async\Cancellation;
use Bobbin\Redis\ConnectionConfig;
use Bobbin\Redis\Exception\AuthenticationException;
use Bobbin\Redis\Exception\ConnectException;
use Bobbin\Redis\Exception\ConnectionLostException;

/**
 * What a new connection says before its first command, one exchange at a time: HELLO (protocol,
 * AUTH, SETNAME in one round trip; RESP2 and a plain AUTH where the server has no HELLO or
 * refuses RESP3), SELECT, and CLIENT TRACKING when asked for.
 *
 * @internal
 */
final class Handshake
{
    public int $protocol = 2;
    public int $clientId = 0;
    public string $serverVersion = '';
    public readonly RespParser $parser;

    private function __construct(private readonly Socket $socket, private readonly ConnectionConfig $config, private readonly Cancellation $cancellation)
    {
        $this->parser = new RespParser();
    }

    /** @param Cancellation $cancellation the connect deadline, and the caller's cancellation */
    public static function perform(Socket $socket, ConnectionConfig $config, Cancellation $cancellation): self
    {
        $handshake = new self($socket, $config, $cancellation);
        $handshake->hello();
        if ($config->database !== 0) {
            $handshake->expectOk(['SELECT', $config->database]);
        }
        if ($config->tracking && $handshake->protocol === 3) {
            $handshake->expectOk(['CLIENT', 'TRACKING', 'ON']);
        }

        return $handshake;
    }

    private function hello(): void
    {
        $hello = ['HELLO', $this->config->protocol];
        if ($this->config->password !== null) {
            \array_push($hello, 'AUTH', $this->config->user ?? 'default', $this->config->password);
        }
        \array_push($hello, 'SETNAME', $this->config->clientName);
        $reply = $this->exchange($hello);
        if ($reply instanceof ErrorReply && $this->config->protocol === 3 && $reply->prefix() === 'NOPROTO') {
            $hello[1] = 2; // a server that speaks HELLO but not RESP3
            $reply = $this->exchange($hello);
        }
        if ($reply instanceof ErrorReply && self::isUnknownCommand($reply)) {
            $this->legacyHello(); // older than Redis 6: AUTH and SETNAME one by one, RESP2

            return;
        }
        if ($reply instanceof ErrorReply) {
            throw $this->refused($reply);
        }
        $fields = self::fields($reply);
        $this->protocol = (int) ($fields['proto'] ?? 2);
        $this->clientId = (int) ($fields['id'] ?? 0);
        $this->serverVersion = \is_string($fields['version'] ?? null) ? $fields['version'] : '';
    }

    private function legacyHello(): void
    {
        $this->protocol = 2;
        if ($this->config->password !== null) {
            $auth = $this->config->user === null ? ['AUTH', $this->config->password] : ['AUTH', $this->config->user, $this->config->password];
            $reply = $this->exchange($auth);
            if ($reply instanceof ErrorReply) {
                throw $this->refused($reply);
            }
        }
        $this->expectOk(['CLIENT', 'SETNAME', $this->config->clientName]);
        $id = $this->exchange(['CLIENT', 'ID']);
        $this->clientId = \is_int($id) ? $id : 0;
    }

    /** @param list<string|int> $command */
    private function expectOk(array $command): void
    {
        $reply = $this->exchange($command);
        if ($reply instanceof ErrorReply) {
            throw $this->refused($reply, $command[0] . ' ' . ($command[1] ?? ''));
        }
    }

    private function refused(ErrorReply $reply, string $step = 'HELLO'): ConnectException
    {
        $prefix = $reply->prefix();
        if (\in_array($prefix, ['WRONGPASS', 'NOAUTH', 'NOPERM'], true) || \str_contains($reply->message, 'invalid password')) {
            return new AuthenticationException(\sprintf('Redis (%s) refused the credentials: %s', $this->config->describe(), $reply->message));
        }

        return new ConnectException(\sprintf('Redis (%s) refused %s: %s', $this->config->describe(), \trim($step), $reply->message));
    }

    private static function isUnknownCommand(ErrorReply $reply): bool
    {
        return $reply->prefix() === 'ERR' && \str_contains(\strtolower($reply->message), 'unknown command');
    }

    /**
     * HELLO's answer as field => value: a map in RESP3, a flat list of pairs in RESP2.
     *
     * @return array<int|string, mixed>
     */
    private static function fields(mixed $reply): array
    {
        if (!\is_array($reply)) {
            return [];
        }
        if (!\array_is_list($reply)) {
            return $reply;
        }
        $fields = [];
        for ($i = 0; $i + 1 < \count($reply); $i += 2) {
            $fields[RespEncoder::toBytes($reply[$i])] = $reply[$i + 1];
        }

        return $fields;
    }

    /** @param list<string|int> $command */
    private function exchange(array $command): mixed
    {
        $out = RespEncoder::command($command);
        while ($out !== '') {
            $written = $this->socket->write($out);
            $out = \substr($out, $written);
            if ($out !== '') {
                $this->socket->awaitWritable($this->cancellation);
            }
        }
        while (true) {
            while ($this->parser->next()) {
                if (!$this->parser->reply instanceof Push) {
                    return $this->parser->reply;
                }
            }
            $bytes = $this->socket->read();
            if ($bytes === null) {
                throw new ConnectionLostException(\sprintf('The server closed the connection during the handshake (%s)', $command[0]));
            }
            if ($bytes === '') {
                $this->socket->awaitReadable($this->cancellation);
            } else {
                $this->parser->append($bytes);
            }
        }
    }
}
