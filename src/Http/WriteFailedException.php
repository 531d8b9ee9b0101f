<?php

declare(strict_types=1);

namespace Bobbin\Http;

/**
 * The client went away (or stopped reading) while a response was being written.
 *
 * @internal between ResponseWriter and Connection
 */
final class WriteFailedException extends \RuntimeException
{
}
