<?php

declare(strict_types=1);

namespace Bobbin\Redis\Exception;

/** A command that would change the shared connection for every fiber, or hold it (SUBSCRIBE, MULTI, BLPOP, SELECT…): the message names the method to use instead. */
final class CommandNotAllowedException extends RedisException
{
}
