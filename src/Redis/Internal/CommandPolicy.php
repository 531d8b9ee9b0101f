<?php

declare(strict_types=1);

namespace Bobbin\Redis\Internal;

use Bobbin\Redis\Exception\CommandNotAllowedException;

/**
 * Commands that must not run on the connection every fiber of the process shares: those that
 * change its session for everyone (SELECT, MULTI, CLIENT REPLY…), hold it (BLPOP…, which would
 * stall every command queued behind), or turn it into something else (SUBSCRIBE, MONITOR). Each
 * has its own way through Client.
 *
 * @internal
 */
final class CommandPolicy
{
    private const SUBSCRIBE = 'subscribe() (a dedicated connection that resubscribes after a reconnect)';
    private const TRANSACTION = 'transaction() (MULTI/EXEC with WATCH on a dedicated connection)';
    private const BLOCKING = 'blocking() or blPop()/brPop() (a dedicated connection)';
    private const SETTINGS = 'the connection settings (ConnectionConfig)';

    private const REFUSED = [
        'SUBSCRIBE' => self::SUBSCRIBE, 'PSUBSCRIBE' => self::SUBSCRIBE, 'SSUBSCRIBE' => self::SUBSCRIBE,
        'UNSUBSCRIBE' => self::SUBSCRIBE, 'PUNSUBSCRIBE' => self::SUBSCRIBE, 'SUNSUBSCRIBE' => self::SUBSCRIBE,
        'MONITOR' => 'a connection of its own (Connection::connect())',
        'MULTI' => self::TRANSACTION, 'EXEC' => self::TRANSACTION, 'DISCARD' => self::TRANSACTION,
        'WATCH' => self::TRANSACTION, 'UNWATCH' => self::TRANSACTION,
        'BLPOP' => self::BLOCKING, 'BRPOP' => self::BLOCKING, 'BRPOPLPUSH' => self::BLOCKING, 'BLMOVE' => self::BLOCKING,
        'BLMPOP' => self::BLOCKING, 'BZPOPMIN' => self::BLOCKING, 'BZPOPMAX' => self::BLOCKING, 'BZMPOP' => self::BLOCKING,
        'WAIT' => self::BLOCKING, 'WAITAOF' => self::BLOCKING,
        'SELECT' => self::SETTINGS, 'HELLO' => self::SETTINGS, 'AUTH' => self::SETTINGS, 'RESET' => self::SETTINGS,
        'QUIT' => self::SETTINGS,
    ];
    private const CLIENT_REFUSED = ['REPLY' => true, 'TRACKING' => true, 'CACHING' => true, 'SETNAME' => true, 'NO-EVICT' => true, 'NO-TOUCH' => true];

    /**
     * @param array<int, mixed> $command
     * @throws CommandNotAllowedException
     */
    public static function checkShared(array $command): void
    {
        $name = $command[0] ?? '';
        if (!\is_string($name)) {
            return; // the encoder names the problem
        }
        $upper = \strtoupper($name);
        if (isset(self::REFUSED[$upper])) {
            throw new CommandNotAllowedException(\sprintf(
                '%s cannot run on the connection the fibers share; use %s',
                $upper,
                self::REFUSED[$upper],
            ));
        }
        if ($upper === 'CLIENT' && isset($command[1]) && \is_string($command[1]) && isset(self::CLIENT_REFUSED[\strtoupper($command[1])])) {
            throw new CommandNotAllowedException(\sprintf('CLIENT %s would change the connection every fiber shares; use %s', \strtoupper($command[1]), self::SETTINGS));
        }
        if (($upper === 'XREAD' || $upper === 'XREADGROUP') && self::hasBlockOption($command)) {
            throw new CommandNotAllowedException(\sprintf('%s with BLOCK cannot run on the connection the fibers share; use %s', $upper, self::BLOCKING));
        }
    }

    /** @param array<int, mixed> $command */
    private static function hasBlockOption(array $command): bool
    {
        foreach ($command as $i => $argument) {
            if ($i > 0 && \is_string($argument) && \strcasecmp($argument, 'STREAMS') === 0) {
                return false; // keys and ids follow: a key may be named "block"
            }
            if ($i > 0 && \is_string($argument) && \strcasecmp($argument, 'BLOCK') === 0) {
                return true;
            }
        }

        return false;
    }
}
