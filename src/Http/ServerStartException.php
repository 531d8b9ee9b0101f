<?php

declare(strict_types=1);

namespace Bobbin\Http;

/** The server could not start listening (address in use, permission denied, bad path). */
final class ServerStartException extends \RuntimeException
{
}
