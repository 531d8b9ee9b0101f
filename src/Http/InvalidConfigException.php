<?php

declare(strict_types=1);

namespace Bobbin\Http;

/** A server option with a value the server cannot use; the CLI turns it into a usage error. */
final class InvalidConfigException extends \InvalidArgumentException
{
}
