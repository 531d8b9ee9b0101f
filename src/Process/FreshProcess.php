<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Bobbin\Async\Loop\StreamDescriptors;
use FFI;

/**
 * Starts a new PHP program from a serving process without handing it anything of that process
 * but one channel, which becomes its standard input: fork(), then — in the child, before anything
 * else runs — dup2() the channel onto descriptor 0 and close every descriptor above 2 (Linux
 * close_range(2); both through FFI), then exec. PHP opens its sockets without O_CLOEXEC and proc_open() closes nothing it was not told
 * to (checked: a proc_open() child holds the parent's listening socket and connections), so
 * without this the new program would keep the server's listening socket and every client's
 * connection open — a connection the server closes would stay open for its client — and the
 * forked copy of the serving heap would live until exec.
 *
 * Signals: blocked around the fork, so that none reaches the copy (whose handlers are the
 * server's) before exec; the new program starts with them blocked and unblocks what it handles.
 */
final class FreshProcess
{
    /** The signals an application or the server may handle; held back while the copy exists. */
    public const HELD_SIGNALS = [\SIGHUP, \SIGINT, \SIGQUIT, \SIGUSR1, \SIGUSR2, \SIGALRM, \SIGTERM, \SIGCHLD, \SIGWINCH];
    private const ALL_ABOVE = 0xFFFFFFFF;

    private function __construct(private readonly FFI $libc)
    {
    }

    /** null where it cannot be done: no FFI (or not allowed), no pcntl_exec(), a libc without close_range(). */
    public static function available(): ?self
    {
        if (!\extension_loaded('ffi') || !\function_exists('pcntl_exec') || !\function_exists('pcntl_fork')) {
            return null;
        }
        try {
            return new self(FFI::cdef('int close_range(unsigned int first, unsigned int last, int flags); int dup2(int oldfd, int newfd);', 'libc.so.6'));
        } catch (\Throwable) {
            return null; // FFI disabled by ffi.enable, or a libc older than 2.34
        }
    }

    /**
     * @param resource $channel what the new program gets as its standard input (stdout and stderr stay this process's)
     * @param list<string> $arguments PHP's
     * @param array<string, string> $environment
     * @return int the new process's pid (a child of this one)
     * @throws \RuntimeException when fork() fails
     */
    public function spawn($channel, array $arguments, array $environment): int
    {
        try {
            $fd = StreamDescriptors::instance()->numberOf($channel); // in this process: the copy runs as little as it can
        } catch (\Throwable $error) {
            throw new \RuntimeException('cannot tell the channel\'s descriptor: ' . $error->getMessage(), 0, $error);
        }
        $held = [];
        \pcntl_sigprocmask(\SIG_BLOCK, self::HELD_SIGNALS, $held);
        try {
            $pid = \pcntl_fork();
            if ($pid === 0) {
                $this->becomeProgram($fd, $arguments, $environment); // never returns
            }
        } finally {
            \pcntl_sigprocmask(\SIG_SETMASK, $held);
        }
        if ($pid === -1) {
            throw new \RuntimeException('fork() failed: ' . \pcntl_strerror(\pcntl_get_last_error()));
        }

        return $pid;
    }

    /**
     * In the forked copy: out of the terminal's process group, the channel on stdin, every other
     * descriptor closed, then exec. Whatever fails ends the copy by SIGKILL: no destructor,
     * shutdown function or stream flush of the serving process may run here.
     *
     * @param int $fd the channel's descriptor number (-1: unknown)
     * @param list<string> $arguments
     * @param array<string, string> $environment
     */
    private function becomeProgram(int $fd, array $arguments, array $environment): never
    {
        @\posix_setpgid(0, 0); // Ctrl-C is the serving process's; it stops what it started
        // Not on 1 or 2 (a server started with stdout or stderr closed): the program's output would go into the channel.
        // @phpstan-ignore method.notFound (declared in available())
        if (($fd === 0 || $fd > 2) && $this->libc->dup2($fd, 0) === 0) {
            // @phpstan-ignore method.notFound (declared in available())
            $this->libc->close_range(3, self::ALL_ABOVE, 0);
            @\pcntl_exec(\PHP_BINARY, $arguments, $environment);
        }
        \posix_kill(\posix_getpid(), \SIGKILL);
        exit(1); // not reached
    }
}
