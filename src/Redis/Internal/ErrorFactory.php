<?php

declare(strict_types=1);

namespace Bobbin\Redis\Internal;

use Bobbin\Redis\Exception\CommandException;
use Bobbin\Redis\Exception\NoScriptException;
use Bobbin\Redis\Exception\ServerBusyException;
use Bobbin\Redis\Exception\WrongTypeException;

/**
 * Error replies as exceptions, chosen by what the caller does next (docs/CLIENTS.md).
 *
 * @internal
 */
final class ErrorFactory
{
    private const BUSY = ['LOADING' => true, 'BUSY' => true, 'MASTERDOWN' => true, 'TRYAGAIN' => true, 'OOM' => true, 'READONLY' => true, 'CLUSTERDOWN' => true];

    /** @param array<int, mixed> $command */
    public static function forReply(ErrorReply $reply, array $command): CommandException
    {
        $prefix = $reply->prefix();
        $what = self::describe($command);

        return match (true) {
            $prefix === 'WRONGTYPE' => new WrongTypeException($reply->message, $prefix, $what),
            $prefix === 'NOSCRIPT' => new NoScriptException($reply->message, $prefix, $what),
            isset(self::BUSY[$prefix]) => new ServerBusyException($reply->message, $prefix, $what),
            default => new CommandException($reply->message, $prefix, $what),
        };
    }

    /**
     * A reply with every error inside it (an array's element, at any depth: a script's
     * `{1, redis.error_reply(…)}`, an EXEC's) turned into its exception, in its place; an error
     * reply itself is the exception.
     *
     * @param array<int, mixed> $command
     */
    public static function inPlace(mixed $reply, array $command): mixed
    {
        if ($reply instanceof ErrorReply) {
            return self::forReply($reply, $command);
        }
        if (\is_array($reply)) {
            foreach ($reply as $key => $element) {
                if ($element instanceof ErrorReply || \is_array($element)) {
                    $reply[$key] = self::inPlace($element, $command);
                }
            }
        }

        return $reply;
    }

    /**
     * The command's name and first argument (usually the key), shortened: enough to find the
     * call in the code, never a value (a password, a payload).
     *
     * @param array<int, mixed> $command
     */
    public static function describe(array $command): string
    {
        $name = \strtoupper(RespEncoder::toBytes($command[0] ?? ''));
        if (\in_array($name, ['AUTH', 'HELLO', 'MIGRATE', 'ACL', 'CONFIG'], true) || !isset($command[1])) {
            return $name;
        }
        $first = \is_scalar($command[1]) || $command[1] instanceof \Stringable ? (string) $command[1] : '';
        if (\strlen($first) > 40) {
            $first = \substr($first, 0, 40) . '…';
        }

        return $name . ' ' . \addcslashes($first, "\0..\37\177..\377");
    }
}
