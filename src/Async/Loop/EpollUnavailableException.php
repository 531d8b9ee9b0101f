<?php

declare(strict_types=1);

namespace Bobbin\Async\Loop;

/**
 * epoll cannot be used in this process: not Linux, no FFI (or ffi.enable forbids it in this
 * SAPI), or PHP's engine did not give stream descriptors. The automatic driver choice falls
 * back to stream_select(); BOBBIN_LOOP_DRIVER=epoll fails with this.
 */
final class EpollUnavailableException extends \RuntimeException
{
}
