<?php

declare(strict_types=1);

namespace Bobbin\Async\Loop;

use FFI;
use FFI\CData;

/**
 * One epoll instance, through FFI to libc: epoll_create1, epoll_ctl, epoll_pwait2 (epoll_wait
 * where glibc lacks it), and poll(2) for a one-off check. Only system calls and their errors
 * here; EpollPoller decides what to register.
 *
 * The instance is created by open(), not by the constructor: a process that never polls (the
 * master, which forks workers) holds no epoll descriptor its children would share.
 *
 * @internal
 */
final class LinuxEpoll
{
    public const IN = 0x001;
    public const OUT = 0x004;
    public const ERR = 0x008;
    public const HUP = 0x010;

    public const ADD = 1;
    public const DELETE = 2;
    public const MODIFY = 3;

    public const EPERM = 1;
    public const ENOENT = 2;
    public const EINTR = 4;
    public const EBADF = 9;
    public const EEXIST = 17;
    /** The kernel lacks the system call (epoll_pwait2 before Linux 5.11, or under valgrind 3.19). */
    private const ENOSYS = 38;

    private const CLOEXEC = 0x80000;
    private const POLLIN = 0x001;
    /** Ready descriptors taken per wait; more stay ready (level-triggered) for the next one. */
    public const MAX_EVENTS = 512;
    /** Timeouts from here on are waited in milliseconds; shorter ones in nanoseconds (epoll_pwait2). */
    private const MILLISECONDS_ENOUGH = 0.1;

    /**
     * The kernel's struct epoll_event is packed on x86-64 only (12 bytes there, 16 elsewhere).
     * Its data union is declared as the uint64_t we use: one FFI read instead of two.
     */
    private const DECLARATIONS = <<<'C'
        struct %s epoll_event { uint32_t events; uint64_t data; };
        int epoll_create1(int flags);
        int epoll_ctl(int epfd, int op, int fd, struct epoll_event *event);
        int epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout);
        int close(int fd);
        int *__errno_location(void);
        struct pollfd { int fd; short events; short revents; };
        int poll(struct pollfd *fds, unsigned long nfds, int timeout);
        C;
    private const PWAIT2 = <<<'C'
        struct timespec { long tv_sec; long tv_nsec; };
        int epoll_pwait2(int epfd, struct epoll_event *events, int maxevents, const struct timespec *timeout, const void *sigmask);
        C;

    /** epoll_ctl() calls made so far: interest is meant to change rarely, and tests check it. */
    public int $controlCalls = 0;

    private static ?FFI $ffi = null;
    private static bool $hasPwait2 = false;

    private readonly FFI $lib;
    /** struct epoll_event[MAX_EVENTS]: what the last wait() found, read by EpollPoller in place. */
    public readonly CData $events;
    private readonly CData $event;
    private readonly CData $poll;
    /** Null where glibc or the kernel lacks epoll_pwait2: waits are then in milliseconds. */
    private ?CData $timespec;
    private readonly ?CData $timespecAddress;
    private int $epfd = -1;
    private int $pid = 0;

    /** @throws EpollUnavailableException */
    public function __construct()
    {
        [$this->lib, $hasPwait2] = self::bind();
        $this->event = $this->lib->new('struct epoll_event') ?? throw new EpollUnavailableException('FFI::new() failed');
        $this->poll = $this->lib->new('struct pollfd') ?? throw new EpollUnavailableException('FFI::new() failed');
        $this->events = $this->lib->new(\sprintf('struct epoll_event[%d]', self::MAX_EVENTS)) ?? throw new EpollUnavailableException('FFI::new() failed');
        $this->timespec = $hasPwait2 ? $this->lib->new('struct timespec') : null;
        $this->timespecAddress = $this->timespec === null ? null : FFI::addr($this->timespec);
    }

    public function __destruct()
    {
        // Only our own descriptor: after a fork the instance is shared, so never epoll_ctl here.
        if ($this->epfd >= 0) {
            self::call($this->lib, 'close', $this->epfd);
        }
    }

    /** Whether this process owns an open instance (a forked child does not own its parent's). */
    public function isOpen(): bool
    {
        return $this->epfd >= 0 && $this->pid === \getmypid();
    }

    /** Creates a new, empty instance, closing the one before (whose registrations are gone with it). */
    public function open(): void
    {
        if ($this->epfd >= 0) {
            self::call($this->lib, 'close', $this->epfd);
            $this->epfd = -1;
        }
        $epfd = self::call($this->lib, 'epoll_create1', self::CLOEXEC);
        \assert(\is_int($epfd));
        if ($epfd < 0) {
            throw new \Error(\sprintf('epoll_create1() failed (errno %d)', $this->errno()));
        }
        $this->epfd = $epfd;
        $this->pid = (int) \getmypid();
    }

    /** epoll_ctl(): 0, or the errno it failed with. */
    public function control(int $operation, int $fd, int $events, int $token): int
    {
        $this->controlCalls++;
        $event = $this->event;
        $event->events = $events; // @phpstan-ignore property.notFound (struct epoll_event)
        $event->data = $token; // @phpstan-ignore property.notFound (struct epoll_event)
        $result = self::call($this->lib, 'epoll_ctl', $this->epfd, $operation, $fd, FFI::addr($event));

        return $result === 0 ? 0 : $this->errno();
    }

    /**
     * Waits up to $timeout seconds (null: no limit); returns how many events it stored in
     * $events (each: the event bits, and in data the token the descriptor was registered with).
     * A signal ends the wait with none.
     */
    public function wait(?float $timeout): int
    {
        if ($this->epfd < 0) {
            $this->open(); // nothing registered yet (only streams epoll refuses)
        }
        $lib = $this->lib;
        if ($timeout === null) {
            $count = $lib->epoll_wait($this->epfd, $this->events, self::MAX_EVENTS, -1); // @phpstan-ignore method.notFound (declared in DECLARATIONS)
        } elseif ($timeout <= 0.0) {
            $count = $lib->epoll_wait($this->epfd, $this->events, self::MAX_EVENTS, 0); // @phpstan-ignore method.notFound (declared in DECLARATIONS)
        } elseif ($timeout >= self::MILLISECONDS_ENOUGH || $this->timespec === null) {
            // Milliseconds, rounded up: a timer fires up to 1 ms late (under 1 % of such waits), never early.
            $count = $lib->epoll_wait($this->epfd, $this->events, self::MAX_EVENTS, (int) \ceil($timeout * 1000)); // @phpstan-ignore method.notFound (declared in DECLARATIONS)
        } else {
            $seconds = (int) $timeout;
            $this->timespec->tv_sec = $seconds; // @phpstan-ignore property.notFound (struct timespec)
            $this->timespec->tv_nsec = (int) (($timeout - $seconds) * 1e9); // @phpstan-ignore property.notFound (struct timespec)
            $count = $lib->epoll_pwait2($this->epfd, $this->events, self::MAX_EVENTS, $this->timespecAddress, null); // @phpstan-ignore method.notFound (declared in PWAIT2)
            if ($count < 0 && $this->errno() === self::ENOSYS) {
                // glibc has it, the kernel does not: milliseconds from now on.
                $this->timespec = null;

                return $this->wait($timeout);
            }
        }
        \assert(\is_int($count));
        if ($count < 0) {
            if ($this->errno() !== self::EINTR) {
                throw new \Error(\sprintf('epoll_wait() failed (errno %d)', $this->errno()));
            }

            return 0;
        }

        return $count;
    }

    /**
     * Whether $fd has something to read (data, an end of stream, an error) right now: one
     * zero-timeout poll(2), for descriptors stream_select() cannot take (1024 and above).
     */
    public function isReadableNow(int $fd): bool
    {
        $poll = $this->poll;
        $poll->fd = $fd; // @phpstan-ignore property.notFound (struct pollfd)
        $poll->events = self::POLLIN; // @phpstan-ignore property.notFound (struct pollfd)
        $poll->revents = 0; // @phpstan-ignore property.notFound (struct pollfd)

        return $this->lib->poll(FFI::addr($poll), 1, 0) === 1; // @phpstan-ignore method.notFound (declared in DECLARATIONS)
    }

    private function errno(): int
    {
        $location = self::call($this->lib, '__errno_location');
        \assert($location instanceof CData);

        return $location[0];
    }

    /**
     * @return array{FFI, bool} the binding, and whether it has epoll_pwait2
     * @throws EpollUnavailableException
     */
    private static function bind(): array
    {
        if (self::$ffi !== null) {
            return [self::$ffi, self::$hasPwait2];
        }
        if (\PHP_OS_FAMILY !== 'Linux' || !\extension_loaded('ffi')) {
            throw new EpollUnavailableException('epoll needs Linux and the FFI extension');
        }
        $declarations = \sprintf(self::DECLARATIONS, \php_uname('m') === 'x86_64' ? '__attribute__((packed))' : '');
        try {
            self::$ffi = FFI::cdef($declarations . self::PWAIT2);
            self::$hasPwait2 = true;
        } catch (\FFI\Exception) {
            try {
                self::$ffi = FFI::cdef($declarations); // glibc before 2.35: epoll_wait's milliseconds
            } catch (\FFI\Exception $e) {
                throw new EpollUnavailableException('FFI cannot reach libc\'s epoll here (ffi.enable must allow it in this SAPI): ' . $e->getMessage(), 0, $e);
            }
        }

        return [self::$ffi, self::$hasPwait2];
    }

    /** Calls a libc function declared in DECLARATIONS (the analyser cannot see FFI's methods). */
    private static function call(FFI $lib, string $function, mixed ...$args): mixed
    {
        return $lib->{$function}(...$args);
    }
}
