<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

/**
 * The libc calls a script's process needs beyond PHP's own (through FFI, bound once in the
 * parent so a child never parses a declaration): _exit(), which ends the process without
 * PHP's shutdown — no destructor of the parent's objects, no finally block of its fibers runs
 * in the child —, prctl(PR_SET_PDEATHSIG), so a child never outlives its parent, and a file in
 * memory as its stdout, where PHP's CLI writes what the script outputs.
 *
 * @internal used by IsolatedLegacyLoop
 */
final class ChildProcessCalls
{
    private const DECLARATIONS = 'void _exit(int status);'
        . ' int prctl(int option, unsigned long arg2, unsigned long arg3, unsigned long arg4, unsigned long arg5);'
        . ' int memfd_create(const char *name, unsigned int flags); int dup2(int oldfd, int newfd); int close(int fd);'
        . ' long lseek(int fd, long offset, int whence); int ftruncate(int fd, long length);';
    private const STDOUT = 1;
    private const PR_SET_PDEATHSIG = 1;

    private static ?\FFI $libc = null;

    private function __construct()
    {
    }

    /** Binds the calls; false without FFI. */
    public static function bind(): bool
    {
        if (self::$libc !== null) {
            return true;
        }
        try {
            self::$libc = \extension_loaded('ffi') ? \FFI::cdef(self::DECLARATIONS) : null;
        } catch (\Throwable) {
            self::$libc = null;
        }

        return self::$libc !== null;
    }

    /** SIGKILL for this process when its parent ends (a worker killed past its drain time). */
    public static function dieWithParent(): void
    {
        // @phpstan-ignore method.notFound (declared in DECLARATIONS)
        self::$libc?->prctl(self::PR_SET_PDEATHSIG, \SIGKILL, 0, 0, 0);
    }

    /**
     * From now on this process's stdout (what PHP's output layer writes, past the script's
     * output buffers) goes to a file in memory, read back by takeStdout(); false if it cannot.
     */
    public static function captureStdout(): bool
    {
        $libc = self::$libc;
        if ($libc === null) {
            return false;
        }
        // @phpstan-ignore method.notFound (declared in DECLARATIONS)
        $fd = (int) $libc->memfd_create('bobbin-script-output', 0);
        if ($fd < 0) {
            return false;
        }
        // @phpstan-ignore method.notFound (declared in DECLARATIONS)
        $duplicated = (int) $libc->dup2($fd, self::STDOUT);
        // @phpstan-ignore method.notFound (declared in DECLARATIONS)
        $libc->close($fd);

        return $duplicated === self::STDOUT;
    }

    /** Everything written to stdout since captureStdout(). */
    public static function takeStdout(): string
    {
        // @phpstan-ignore method.notFound (declared in DECLARATIONS)
        self::$libc?->lseek(self::STDOUT, 0, \SEEK_SET);
        $stdout = @\fopen('php://fd/' . self::STDOUT, 'r');
        if ($stdout === false) {
            return '';
        }

        return (string) \stream_get_contents($stdout);
    }

    /** What was written to stdout since captureStdout() or the last drain, and stdout emptied. */
    public static function drainStdout(): string
    {
        $output = self::takeStdout();
        // @phpstan-ignore method.notFound (declared in DECLARATIONS)
        self::$libc?->ftruncate(self::STDOUT, 0);
        // @phpstan-ignore method.notFound (declared in DECLARATIONS)
        self::$libc?->lseek(self::STDOUT, 0, \SEEK_SET);

        return $output;
    }

    /** Ends this process at once, with $status: nothing of PHP's shutdown runs. */
    public static function exitNow(int $status): never
    {
        // @phpstan-ignore method.notFound (declared in DECLARATIONS)
        self::$libc?->_exit($status);
        \posix_kill((int) \getmypid(), \SIGKILL);
        exit($status); // not reached
    }
}
