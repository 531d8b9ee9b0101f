<?php

declare(strict_types=1);

namespace Bobbin\MessagePack;

/** Bytes that are not MessagePack (truncated, an unknown type byte, a bad extension) or a value that cannot be encoded. */
final class MessagePackException extends \RuntimeException
{
}
