<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Bobbin\Async\Loop\StreamDescriptors;
use FFI;
use FFI\CData;

/**
 * sendfile(2) from a file to a non-blocking socket, through FFI: the kernel copies the file's
 * pages to the socket, no byte passes through PHP. PHP has no function for it:
 * stream_copy_to_stream() maps the file and writes it, but a partial write to a non-blocking
 * socket makes it return false without saying how much went out. Here a full socket buffer is
 * "0 bytes" (EAGAIN), and the caller waits for the socket as for any write.
 *
 * Never for an encrypted stream (its bytes must go through OpenSSL): send() refuses one.
 * Unavailable (instance() null) without FFI or where the descriptor lookup fails its self-test.
 */
final class FileSender
{
    private const DECLARATIONS = 'long sendfile(int out_fd, int in_fd, long *offset, unsigned long count); int *__errno_location(void);';
    private const EINTR = 4;
    private const EAGAIN = 11;

    private static self|false|null $instance = null;

    private readonly CData $offset;
    private readonly CData $offsetAddress;

    private function __construct(private readonly FFI $libc, private readonly StreamDescriptors $descriptors)
    {
        $this->offset = $libc->new('long') ?? throw new \Error('FFI::new() failed');
        $this->offsetAddress = FFI::addr($this->offset);
    }

    public static function instance(): ?self
    {
        if (self::$instance === null) {
            try {
                self::$instance = \extension_loaded('ffi') ? new self(FFI::cdef(self::DECLARATIONS), StreamDescriptors::instance()) : false;
            } catch (\Throwable) {
                self::$instance = false;
            }
        }

        return self::$instance === false ? null : self::$instance;
    }

    /**
     * Sends up to $length bytes of $file from $offset on $socket.
     *
     * @param resource $socket non-blocking
     * @param resource $file a plain file
     * @return int bytes sent; 0 when the socket takes nothing now; -1 when sendfile() cannot send these (send them another way)
     */
    public function send($socket, $file, int $offset, int $length): int
    {
        if (isset(\stream_get_meta_data($socket)['crypto'])) {
            return -1;
        }
        $out = $this->descriptors->numberOf($socket);
        $in = $this->descriptors->numberOf($file);
        if ($out < 0 || $in < 0) {
            return -1;
        }
        $this->offset->cdata = $offset; // @phpstan-ignore property.notFound (a long)
        $sent = self::call($this->libc, 'sendfile', $out, $in, $this->offsetAddress, $length);
        if (\is_int($sent) && $sent >= 0) {
            return $sent;
        }
        $errno = self::call($this->libc, '__errno_location');
        $errno = $errno instanceof CData ? $errno[0] : 0; // an int *

        return $errno === self::EAGAIN || $errno === self::EINTR ? 0 : -1;
    }

    /** Calls a function declared in DECLARATIONS (the analyser cannot see FFI's methods). */
    private static function call(FFI $libc, string $function, mixed ...$args): mixed
    {
        return $libc->{$function}(...$args);
    }
}
