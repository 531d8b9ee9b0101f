<?php

declare(strict_types=1);

namespace Bobbin\Async\Loop;

use FFI;
use FFI\CData;

/**
 * When the kernel last received data on a TCP socket: getsockopt(TCP_INFO)'s
 * tcpi_last_data_recv, milliseconds ago (jiffies: 1–4 ms resolution). Asked only when the loop
 * found a socket ready after a long stretch of work, to tell how long its bytes waited; through
 * FFI, since PHP's socket_get_option() reads one int, not the struct.
 *
 * @internal
 */
final class TcpArrival
{
    /**
     * struct tcp_info as far as read here: 8 bytes of u8 fields, then u32s; tcpi_last_data_recv
     * is the 12th u32, read as one field (one FFI read instead of four bytes, each an FFI read).
     */
    private const DECLARATIONS = 'typedef struct { unsigned char head[52]; uint32_t last_data_recv; unsigned char tail[176]; } bobbin_tcp_info;'
        . ' int getsockopt(int sockfd, int level, int optname, void *optval, unsigned int *optlen);';
    private const IPPROTO_TCP = 6;
    private const TCP_INFO = 11;
    private const LAST_DATA_RECV_OFFSET = 52;
    private const SIZE = 232;
    /** Descriptors remembered by stream (resource ids are never reused); forgotten all at once past this. */
    private const REMEMBERED = 4096;

    private static self|false|null $instance = null;

    /** @var array<int, int> descriptor number by resource id; -1: not a TCP socket */
    private array $descriptorOf = [];
    private readonly CData $info;
    private readonly CData $length;
    private readonly CData $infoAddress;
    private readonly CData $lengthAddress;

    private function __construct(private readonly FFI $libc, private readonly StreamDescriptors $descriptors)
    {
        $this->info = $libc->new('bobbin_tcp_info') ?? throw new \Error('FFI::new() failed');
        $this->length = $libc->new('unsigned int') ?? throw new \Error('FFI::new() failed');
        $this->infoAddress = FFI::addr($this->info);
        $this->lengthAddress = FFI::addr($this->length);
    }

    /** Unix time the kernel last received data on $stream; null for a socket that is not TCP, or where FFI is missing. */
    public static function of(mixed $stream): ?float
    {
        if (!\is_resource($stream)) {
            return null;
        }
        if (TcpArrival::$instance === null) {
            try {
                TcpArrival::$instance = new self(FFI::cdef(self::DECLARATIONS), StreamDescriptors::instance());
            } catch (\Throwable) {
                TcpArrival::$instance = false;
            }
        }

        return TcpArrival::$instance === false ? null : TcpArrival::$instance->lastReceived($stream);
    }

    /**
     * Asked for the sockets a late poll found ready, possibly hundreds at once on a loaded
     * worker: the descriptor number (an FFI walk of the engine) and whether it is TCP are
     * found once per stream.
     *
     * @param resource $stream
     */
    private function lastReceived($stream): ?float
    {
        $key = (int) $stream;
        $fd = $this->descriptorOf[$key] ?? null;
        if ($fd === null) {
            if (\count($this->descriptorOf) >= self::REMEMBERED) {
                $this->descriptorOf = [];
            }
            $isTcp = \str_starts_with(\stream_get_meta_data($stream)['stream_type'], 'tcp_socket');
            $fd = $this->descriptorOf[$key] = $isTcp ? $this->descriptors->numberOf($stream) : -1;
        }
        if ($fd < 0) {
            return null;
        }
        $this->length->cdata = self::SIZE; // @phpstan-ignore property.notFound (an unsigned int)
        $result = $this->libc->getsockopt($fd, self::IPPROTO_TCP, self::TCP_INFO, $this->infoAddress, $this->lengthAddress); // @phpstan-ignore method.notFound
        /** @var int $filled */
        $filled = $this->length->cdata;
        if ($result !== 0 || $filled < self::LAST_DATA_RECV_OFFSET + 4) {
            return null;
        }
        /** @var int $milliseconds */
        $milliseconds = $this->info->last_data_recv; // @phpstan-ignore property.notFound

        return \microtime(true) - $milliseconds / 1000;
    }
}
