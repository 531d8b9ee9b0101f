<?php

declare(strict_types=1);

namespace Bobbin\Async\Loop;

use Bobbin\Async\StreamClosedException;

/**
 * Readiness by epoll (Linux, through FFI): a stream is registered once, and a wait costs what
 * is ready, not what is watched, so idle keep-alive connections and pooled database sockets
 * cost nothing per tick; and there is no limit at descriptor 1024.
 *
 * Level-triggered, with lazy disarming: when a fiber's wait ends, its interest stays armed in
 * the kernel, because the fiber nearly always waits again (a connection reading its next
 * request) and then no system call is needed at all. Only an event nobody wants any more costs
 * an epoll_ctl(), which then narrows or deletes the registration.
 *
 * Closed streams: PHP may close a stream's descriptor without telling the loop, the kernel may
 * reuse the number at once, and epoll keeps a registration for as long as any duplicate of the
 * descriptor lives (a listening socket shared with other workers). So each registration has its
 * own token, never reused; a new stream on a number the kernel accepts afresh replaces the old
 * registration; and an event for a forgotten token or a closed stream makes the poller rebuild
 * its epoll instance from the registrations still alive, the only way to drop such an entry.
 *
 * Descriptors epoll refuses (regular files, /dev/null) are always ready, as stream_select()
 * says of them. PHP's own read buffer is not seen: streams must have it off (docs/ASYNC.md).
 *
 * @internal
 */
final class EpollPoller implements Poller
{
    // LinuxEpoll's IN, OUT, IN|ERR|HUP and OUT|ERR|HUP, written as numbers: a constant made of
    // another class's is looked up again at each use (zend_fetch_class), and wait() reads these
    // per event (EpollPollerTest holds them equal).
    private const READ = 0x001;
    private const WRITE = 0x004;
    private const READ_READY = 0x019;
    private const WRITE_READY = 0x01c;

    /** @var array<int, EpollRegistration> by stream key */
    private array $byKey = [];
    /** @var array<int, EpollRegistration> by descriptor number */
    private array $byFd = [];
    /** @var array<int, EpollRegistration> by token */
    private array $byToken = [];
    /** @var array<int, resource> streams epoll refuses, watched for reading: always ready */
    private array $alwaysReadable = [];
    /** @var array<int, resource> */
    private array $alwaysWritable = [];
    private int $nextToken = 0;
    /** @var int waits made (untyped: written on every turn, see docs/ASYNC.md, Rules) */
    private $waits = 0;
    /** @var int the last wait whose event buffer filled up: it may have left ready registrations unreported */
    private $lastIncompleteWait = 0;

    public function __construct(private readonly LinuxEpoll $epoll, private readonly StreamDescriptors $descriptors)
    {
    }

    /** @throws EpollUnavailableException */
    public static function create(): self
    {
        return new self(new LinuxEpoll(), StreamDescriptors::instance());
    }

    public function watchRead(int $key, mixed $stream): void
    {
        $this->watch($key, $stream, self::READ);
    }

    public function watchWrite(int $key, mixed $stream): void
    {
        $this->watch($key, $stream, self::WRITE);
    }

    public function unwatchRead(int $key): void
    {
        $registration = $this->byKey[$key] ?? null;
        if ($registration === null) {
            unset($this->alwaysReadable[$key]);
        } elseif ($registration->single) {
            // Lazily: the kernel hears of it at the next event nobody wants.
            $registration->wanted = $registration->mask &= ~self::READ;
        } else {
            $registration->remove($key, self::READ);
        }
    }

    public function unwatchWrite(int $key): void
    {
        $registration = $this->byKey[$key] ?? null;
        if ($registration === null) {
            unset($this->alwaysWritable[$key]);
        } elseif ($registration->single) {
            $registration->wanted = $registration->mask &= ~self::WRITE;
        } else {
            $registration->remove($key, self::WRITE);
        }
    }

    public function wait(?float $timeout, array &$readable, array &$writable, array &$failed): int
    {
        if ($this->alwaysReadable !== [] || $this->alwaysWritable !== []) {
            $timeout = 0.0;
        }
        $ready = 0;
        $stale = false;
        $count = $this->epoll->wait($timeout);
        $this->waits++;
        if ($count >= LinuxEpoll::MAX_EVENTS) {
            // A full buffer may have left ready registrations for the next wait to report.
            $this->lastIncompleteWait = $this->waits;
        }
        $events = $this->epoll->events;
        for ($i = 0; $i < $count; $i++) {
            // Read in place: cheaper than copying the events out first, with the JIT or without.
            $event = $events[$i];
            $bits = $event->events;
            $registration = $this->byToken[$event->data] ?? null;
            if ($registration === null) {
                $stale = true; // a forgotten registration kept alive by a duplicate descriptor
                continue;
            }
            $wanted = $registration->wanted;
            if ($wanted === 0 || ($bits & ~$wanted & (self::READ | self::WRITE)) !== 0) {
                $stale = !$this->disarm($registration) || $stale;
                if ($wanted === 0) {
                    continue;
                }
            }
            $ready++;
            if ($registration->single) {
                if (!\is_resource($registration->stream)) {
                    $stale = true; // closed by PHP, yet its descriptor lives on in a duplicate
                    continue;
                }
                if (($wanted & self::READ) !== 0 && ($bits & self::READ_READY) !== 0) {
                    $readable[$registration->key] = true;
                }
                if (($wanted & self::WRITE) !== 0 && ($bits & self::WRITE_READY) !== 0) {
                    $writable[$registration->key] = true;
                }
                continue;
            }
            foreach ($registration->entries() as $key => [$stream, $mask]) {
                if (!\is_resource($stream)) {
                    $stale = true;
                    continue;
                }
                if (($mask & self::READ) !== 0 && ($bits & self::READ_READY) !== 0) {
                    $readable[$key] = true;
                }
                if (($mask & self::WRITE) !== 0 && ($bits & self::WRITE_READY) !== 0) {
                    $writable[$key] = true;
                }
            }
        }
        foreach ($this->alwaysReadable as $key => $_) {
            $readable[$key] = true;
            $ready++;
        }
        foreach ($this->alwaysWritable as $key => $_) {
            $writable[$key] = true;
            $ready++;
        }
        if ($stale) {
            $failed += $this->rebuild();
        }

        return $ready;
    }

    public function waits(): int
    {
        return $this->waits;
    }

    /**
     * A registration stays armed for reading after its last waiter left, and the first event
     * nobody wants disarms it (or deletes it): so one armed for reading since before $since,
     * with a complete wait made after it, had nothing to read at that wait. Meant for a stream
     * nobody waited on meanwhile (an idle pooled connection): a waiter that came, read what
     * arrived and left would not show.
     */
    public function stayedQuietSince(int $key, int $since): bool
    {
        $registration = $this->byKey[$key] ?? null;

        return $registration !== null && $this->waits > $since && $this->lastIncompleteWait <= $since
            && ($registration->armed & self::READ) !== 0 && $registration->readArmedAt <= $since;
    }

    public function isReadableNow(mixed $stream): bool
    {
        $fd = $this->descriptors->numberOf($stream);

        return $fd >= 0 && $this->epoll->isReadableNow($fd);
    }

    public function descriptorCeiling(): ?int
    {
        return null;
    }

    /** @param resource $stream */
    private function watch(int $key, mixed $stream, int $bit): void
    {
        $registration = $this->byKey[$key] ?? null;
        if ($registration === null) {
            $this->register($key, $stream, $bit);

            return;
        }
        if ($registration->single) {
            $registration->wanted = $registration->mask |= $bit;
        } else {
            $registration->add($key, $stream, $bit);
        }
        if (($registration->armed & $bit) !== 0) {
            return; // still armed from an earlier wait: nothing to tell the kernel
        }
        $errno = $this->epoll->control(LinuxEpoll::MODIFY, $registration->fd, $registration->armed | $bit, $registration->token);
        if ($errno === 0) {
            $registration->armed |= $bit;
            $this->noteArmed($registration, $bit);

            return;
        }
        // The descriptor was closed behind our back (and perhaps reused): start afresh.
        $this->forget($registration);
        foreach ($registration->entries() as $otherKey => [$otherStream, $mask]) {
            if ($mask !== 0 && \is_resource($otherStream)) {
                $this->register($otherKey, $otherStream, $mask);
            }
        }
    }

    /** @param resource $stream */
    private function register(int $key, mixed $stream, int $bits): void
    {
        if (isset($this->alwaysReadable[$key]) || isset($this->alwaysWritable[$key])) {
            $this->alwaysReady($key, $stream, $bits);

            return;
        }
        if (!$this->epoll->isOpen()) {
            $this->rebuild();
        }
        $fd = $this->descriptors->numberOf($stream);
        if ($fd < 0) {
            throw \is_resource($stream)
                ? new \ValueError('The stream has no descriptor to poll (a memory or filtered stream?)')
                : new StreamClosedException('The stream is closed');
        }
        $token = ++$this->nextToken;
        $errno = $this->epoll->control(LinuxEpoll::ADD, $fd, $bits, $token);
        $shared = $this->byFd[$fd] ?? null;
        if ($errno === LinuxEpoll::EEXIST && $shared !== null) {
            // Another stream resource on the very same open descriptor: share its registration.
            $this->byKey[$key] = $shared;
            $shared->add($key, $stream, $bits);
            if (($shared->armed & $bits) !== $bits) {
                $this->watch($key, $stream, $bits & ~$shared->armed);
            }

            return;
        }
        if ($errno === LinuxEpoll::EEXIST) {
            $errno = $this->epoll->control(LinuxEpoll::MODIFY, $fd, $bits, $token);
        }
        if ($errno === LinuxEpoll::EPERM) {
            $this->alwaysReady($key, $stream, $bits); // a regular file or the like: select() calls it ready

            return;
        }
        if ($errno !== 0) {
            throw new \Error(\sprintf('epoll_ctl() cannot watch descriptor %d (errno %d)', $fd, $errno));
        }
        if ($shared !== null) {
            // The kernel took the number afresh: the registration before was for a closed descriptor.
            $this->forget($shared);
        }
        $registration = new EpollRegistration($fd, $token);
        $registration->armed = $bits;
        $this->noteArmed($registration, $bits);
        $registration->add($key, $stream, $bits);
        $this->byKey[$key] = $this->byFd[$fd] = $this->byToken[$token] = $registration;
    }

    /** A wait that began before reading was armed says nothing of the stream's quiet. */
    private function noteArmed(EpollRegistration $registration, int $bits): void
    {
        if (($bits & self::READ) !== 0) {
            $registration->readArmedAt = $this->waits + 1;
        }
    }

    /** @param resource $stream */
    private function alwaysReady(int $key, mixed $stream, int $bits): void
    {
        if (($bits & self::READ) !== 0) {
            $this->alwaysReadable[$key] = $stream;
        }
        if (($bits & self::WRITE) !== 0) {
            $this->alwaysWritable[$key] = $stream;
        }
    }

    /**
     * Tells the kernel what $registration wants now, after an event it did not want; false when
     * the descriptor is no longer the one registered (closed, maybe reused).
     */
    private function disarm(EpollRegistration $registration): bool
    {
        if ($registration->dropClosedStreams()) {
            $this->forget($registration);

            return false;
        }
        $wanted = $registration->wanted;
        if ($wanted === 0) {
            $this->forget($registration);
            $errno = $this->epoll->control(LinuxEpoll::DELETE, $registration->fd, 0, 0);
        } else {
            $registration->armed = $wanted;
            $errno = $this->epoll->control(LinuxEpoll::MODIFY, $registration->fd, $wanted, $registration->token);
        }

        return $errno === 0;
    }

    private function forget(EpollRegistration $registration): void
    {
        unset($this->byToken[$registration->token]);
        if (($this->byFd[$registration->fd] ?? null) === $registration) {
            unset($this->byFd[$registration->fd]);
        }
        foreach ($registration->entries() as $key => $_) {
            if (($this->byKey[$key] ?? null) === $registration) {
                unset($this->byKey[$key]);
            }
        }
    }

    /**
     * A new epoll instance with the registrations that are still wanted and open; entries the
     * old one kept for closed streams go with it.
     *
     * @return array<int, \Throwable> streams that still have waiters but can no longer be polled
     */
    private function rebuild(): array
    {
        $this->epoll->open();
        $failed = [];
        foreach ($this->byToken as $registration) {
            if ($registration->dropClosedStreams() || $registration->wanted === 0) {
                $this->forget($registration);
                continue;
            }
            $errno = $this->epoll->control(LinuxEpoll::ADD, $registration->fd, $registration->wanted, $registration->token);
            if ($errno === 0) {
                $registration->armed = $registration->wanted;
                $this->noteArmed($registration, $registration->wanted);
                continue;
            }
            $this->forget($registration);
            foreach ($registration->entries() as $key => [, $mask]) {
                if ($mask !== 0) {
                    $failed[$key] = new StreamClosedException(\sprintf('The stream\'s descriptor %d was closed while it was watched', $registration->fd));
                }
            }
        }

        return $failed;
    }
}
