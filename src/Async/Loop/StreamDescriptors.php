<?php

declare(strict_types=1);

namespace Bobbin\Async\Loop;

use FFI;
use FFI\CData;

/**
 * The descriptor number of a PHP stream, asked of PHP itself: the engine's _php_stream_cast()
 * with PHP_STREAM_AS_FD_FOR_SELECT, the very call stream_select() makes for each stream. PHP
 * has no function for it (the file_descriptor() RFC was not adopted), so the stream is found
 * through FFI: the engine's symbol table of the calling frame (what get_defined_vars() builds)
 * gives the zval of $stream, whose resource points to the php_stream.
 *
 * The layouts relied on (zval: value then type_info; zend_resource: refcount, type_info,
 * handle, type, ptr) have been the same since PHP 7.0. A self-test at first use compares the
 * numbers found with what /proc/self/fd says about two sockets; any doubt makes epoll
 * unavailable rather than wrong. About 1.3 µs per stream; EpollPoller asks once per stream.
 *
 * Alternatives measured: scanning /proc/self/fd for the entry whose (device, inode) matches
 * fstat() costs a stat per open descriptor (~3.5 µs each: ~35 ms for a stream among 10,000
 * connections); socket_import_stream() gives a Socket whose number PHP does not tell either.
 *
 * @internal
 */
final class StreamDescriptors
{
    private const DECLARATIONS = <<<'C'
        typedef struct _zend_resource { uint32_t refcount; uint32_t type_info; int64_t handle; int type; void *ptr; } zend_resource;
        typedef struct _zval zval;
        typedef union { int64_t lval; double dval; void *ptr; zend_resource *res; zval *zv; } zend_value;
        struct _zval { zend_value value; uint32_t type_info; uint32_t u2; };
        typedef struct _zend_array zend_array;
        zend_array *zend_rebuild_symbol_table(void);
        zval *zend_hash_str_find(const zend_array *ht, const char *key, size_t len);
        int _php_stream_cast(void *stream, int castas, void **ret, int show_err);
        C;
    private const IS_RESOURCE = 9;
    private const IS_REFERENCE = 10;
    private const IS_INDIRECT = 12;
    /** PHP_STREAM_AS_FD_FOR_SELECT | PHP_STREAM_CAST_INTERNAL: no flush, no warning about buffered data. */
    private const CAST_FOR_SELECT = 3 | 0x20000000;

    private static ?self $instance = null;

    private readonly CData $fd;

    private function __construct(private readonly FFI $engine)
    {
        $this->fd = $engine->new('int') ?? throw new EpollUnavailableException('FFI::new() failed');
    }

    /**
     * The shared instance, self-tested on first use.
     *
     * @throws EpollUnavailableException when PHP's engine cannot be reached or answers wrongly
     */
    public static function instance(): self
    {
        if (self::$instance !== null) {
            return self::$instance;
        }
        try {
            $descriptors = new self(FFI::cdef(self::DECLARATIONS));
        } catch (\FFI\Exception $e) {
            throw new EpollUnavailableException('FFI cannot reach PHP\'s stream functions in this binary: ' . $e->getMessage(), 0, $e);
        }
        $descriptors->selfTest();

        return self::$instance = $descriptors;
    }

    /**
     * @param resource $stream
     * @return int the descriptor number, or -1 when $stream is closed or has none (a memory stream)
     */
    public function numberOf(mixed $stream): int
    {
        if (!\is_resource($stream)) {
            return -1;
        }
        $engine = $this->engine;
        // The symbol table of the nearest PHP frame, this one, holds $stream (the name below)
        // as a zval. Called directly: through a helper it would be the helper's frame.
        $symbols = $engine->zend_rebuild_symbol_table(); // @phpstan-ignore method.notFound (declared in DECLARATIONS)
        $zval = self::call($engine, 'zend_hash_str_find', $symbols, 'stream', 6);
        if (!$zval instanceof CData) {
            return -1;
        }
        $type = $zval->type_info & 0xff; // @phpstan-ignore property.notFound (struct _zval)
        if ($type === self::IS_INDIRECT) {
            $zval = $zval->value->zv; // @phpstan-ignore property.notFound (struct _zval)
            $type = $zval->type_info & 0xff;
        }
        if ($type === self::IS_REFERENCE || $type !== self::IS_RESOURCE) {
            return -1;
        }
        $fd = $this->fd;
        $fd->cdata = -1; // @phpstan-ignore property.notFound (an int)
        $phpStream = $zval->value->res->ptr;
        $cast = self::call($engine, '_php_stream_cast', $phpStream, self::CAST_FOR_SELECT, $engine->cast('void **', FFI::addr($fd)), 0);

        return $cast === 0 ? $fd->cdata : -1;
    }

    /** @throws EpollUnavailableException */
    private function selfTest(): void
    {
        $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        if ($pair === false) {
            throw new EpollUnavailableException('No socket pair for the descriptor self-test');
        }
        try {
            foreach ($pair as $socket) {
                $number = $this->numberOf($socket);
                $found = $number >= 0 && \is_dir('/proc/self/fd') ? @\stat('/proc/self/fd/' . $number) : false;
                $expected = \fstat($socket);
                $matches = $number >= 0 && (!\is_dir('/proc/self/fd')
                    || ($found !== false && $expected !== false && $found['ino'] === $expected['ino'] && $found['dev'] === $expected['dev']));
                if (!$matches) {
                    throw new EpollUnavailableException('PHP\'s engine did not give the right descriptor number of a socket');
                }
            }
        } finally {
            \fclose($pair[0]);
            \fclose($pair[1]);
        }
    }

    /** Calls an engine function declared in DECLARATIONS (the analyser cannot see FFI's methods). */
    private static function call(FFI $engine, string $function, mixed ...$args): mixed
    {
        return $engine->{$function}(...$args);
    }
}
