<?php

declare(strict_types=1);

namespace Bobbin\Redis\Exception;

/**
 * The server answered a command with an error reply. prefix() is its first word (ERR,
 * WRONGTYPE, NOSCRIPT, NOPERM, BUSYGROUP…); the subclasses name the ones callers act on.
 */
class CommandException extends RedisException
{
    public function __construct(string $message, private readonly string $prefix, private readonly string $command = '')
    {
        parent::__construct($command === '' ? $message : \sprintf('%s (%s)', $message, $command));
    }

    /** The error's first word, as the server sent it. */
    public function prefix(): string
    {
        return $this->prefix;
    }

    /** The command's name (and the first key), for the log; never its values. */
    public function command(): string
    {
        return $this->command;
    }
}
