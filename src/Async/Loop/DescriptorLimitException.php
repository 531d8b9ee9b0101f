<?php

declare(strict_types=1);

namespace Bobbin\Async\Loop;

/**
 * A stream whose descriptor number stream_select() cannot watch (FD_SETSIZE, 1024 here). Only
 * the waits on that stream fail with it; the loop goes on with the others.
 */
final class DescriptorLimitException extends \RuntimeException
{
}
