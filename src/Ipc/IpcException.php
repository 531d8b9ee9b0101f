<?php

declare(strict_types=1);

namespace Bobbin\Ipc;

/** The daemon could not be reached, refused the request, or broke the protocol. */
class IpcException extends \RuntimeException
{
}
