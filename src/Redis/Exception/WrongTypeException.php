<?php

declare(strict_types=1);

namespace Bobbin\Redis\Exception;

/** WRONGTYPE: the key holds another kind of value than the command works on. */
final class WrongTypeException extends CommandException
{
}
