<?php

declare(strict_types=1);

namespace Bobbin\Ipc\Internal;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\StreamClosedException;
use Bobbin\Async\StreamWatcher;
use Bobbin\Async\TimeoutException;
use Bobbin\Async\Timer;
use Bobbin\Ipc\ConnectionLostException;
use Bobbin\Ipc\IpcException;
use FFI;
use FFI\CData;
use Revolt\EventLoop;
use Socket;

/**
 * A shared-memory channel: two rings in one segment the daemon created for us, an eventfd
 * doorbell each way, and the unix connection of the handshake kept open as the lifeline (the
 * daemon frees everything when it closes).
 *
 * The handshake uses control frames (length word 0x80000000 | body length), which no request
 * frame can look like. Ring records carry an id of this connection's own numbering.
 *
 * @internal
 */
final class ShmConnection implements FramedConnection, ResponseSource
{
    private const DATA_OFFSET = 4096;
    private const WRAP = 0xFFFFFFFF;
    private const OP_SHM_OPEN = 1;
    private const OP_SHM_MAPPED = 2;
    private const CONTROL_FLAG = 0x80000000;
    private const DOORBELL = "\x01\x00\x00\x00\x00\x00\x00\x00";
    private const PADDING = "\x00\x00\x00\x00\x00\x00\x00";
    /** A batch goes out in parts of about this size when the daemon runs on another CPU. */
    private const PART_BYTES = 65536;
    private const CPU_UNKNOWN = 0xFFFFFFFF;

    private readonly ResponseRouter $router;
    /** Made by the first wait on the doorbell: a lone caller answered at once never needs it. */
    private ?StreamWatcher $watcher = null;
    /** The segment header as uint64_t[] (indexes in SharedMemory). */
    private readonly CData $positions;
    /** The segment header as uint32_t[] (the daemon's stall flag). */
    private readonly CData $words;
    private readonly CData $requestRing;
    private readonly CData $responseRing;
    private readonly int $requestCapacity;
    private readonly int $responseCapacity;
    private int $requestTail = 0;
    private int $responseHead = 0;
    /** Id of the next ring record (u32, 0 skipped). */
    private int $nextId = 1;
    private bool $flushScheduled = false;
    /** Whether the batch collecting this tick goes out in parts (see PART_BYTES). */
    private bool $flushInParts = false;
    /** Records (8-byte aligned) waiting for the end of the tick or for ring space. */
    private string $outgoing = '';
    /** Responses found by the last drain of the response ring. */
    private int $lastDrained = 0;
    private bool $open = true;
    /** How often a yield to the daemon lately produced the answer (see yieldForLoneAnswer()). */
    private int $yieldScore = 64;
    private int $yieldMisses = 0;
    /** spl_object_id() of the fiber that sent the last request (0: {main}; -1: none yet, a new connection). */
    private int $lastCaller = -1;
    /** Why the connection ended; made into an exception only when somebody is told (lost()). */
    private string $lostWhy = '';
    private ?\Throwable $lostReason = null;
    /** Started by the first wait on the doorbell: a lone caller answered at once never needs it. */
    private ?Timer $liveness = null;

    /**
     * @param resource $toDaemon eventfd the daemon waits on
     * @param resource $toClient eventfd we wait on
     */
    private function __construct(
        private readonly Socket $control,
        private readonly SharedMemory $memory,
        private $toDaemon,
        private $toClient,
        private readonly float $livenessInterval,
    ) {
        $this->router = new ResponseRouter();
        $this->positions = $memory->positions;
        $this->words = $memory->words;
        $this->requestCapacity = $memory->requestCapacity;
        $this->responseCapacity = $memory->responseCapacity;
        $this->requestRing = $memory->pointer(self::DATA_OFFSET);
        $this->responseRing = $memory->pointer(self::DATA_OFFSET + $this->requestCapacity);
        $this->requestTail = (int) $this->positions[SharedMemory::REQUEST_TAIL];
        $this->responseHead = (int) $this->positions[SharedMemory::RESPONSE_HEAD];
        \stream_set_read_buffer($toClient, 0);
        \stream_set_write_buffer($toDaemon, 0);
    }

    public static function open(string $socketPath, int $ringCapacity, float $timeout, float $livenessInterval): self
    {
        if (!\extension_loaded('sockets')) {
            throw new IpcException('The shared-memory channel needs ext-sockets (SCM_RIGHTS)');
        }
        $control = @\socket_create(\AF_UNIX, \SOCK_STREAM, 0);
        if ($control === false || !@\socket_connect($control, $socketPath)) {
            throw new IpcException(\sprintf('Cannot connect to the IPC daemon at unix://%s: %s', $socketPath, \socket_strerror(\socket_last_error())));
        }
        $hello = \pack('VCV', self::CONTROL_FLAG | 5, self::OP_SHM_OPEN, $ringCapacity);
        if (@\socket_send($control, $hello, \strlen($hello), 0) !== \strlen($hello)) {
            \socket_close($control);
            throw new IpcException('Cannot send the shared-memory handshake');
        }
        $message = ['name' => [], 'buffer_size' => 512, 'controllen' => \socket_cmsg_space(\SOL_SOCKET, \SCM_RIGHTS, 2)];
        // On a shared vCPU the daemon has usually replied by now: wait only if it has not.
        // MSG_DONTWAIT rather than a non-blocking socket: two fcntl calls fewer per connect.
        $received = @\socket_recvmsg($control, $message, \MSG_DONTWAIT);
        if ($received === false) {
            $received = self::awaitHandshakeReply($control, $message, $timeout);
        }
        if ($received === 0) {
            \socket_close($control);
            throw new IpcException('The IPC daemon closed the connection during the shared-memory handshake');
        }
        $reply = $message['iov'][0] ?? '';
        $fds = $message['control'][0]['data'] ?? [];
        if (\strlen($reply) < 20 || \count($fds) !== 2) {
            \socket_close($control);
            throw new IpcException('Bad shared-memory handshake reply');
        }
        /** @var array{word: int, op: int, status: int, req: int, resp: int, segment: int, nameLength: int} $r */
        $r = \unpack('Vword/Cop/Cstatus/Vreq/Vresp/Vsegment/vnameLength', $reply);
        if (($r['word'] & self::CONTROL_FLAG) === 0 || $r['op'] !== self::OP_SHM_OPEN || $r['status'] !== 0) {
            \socket_close($control);
            throw new IpcException('The IPC daemon refused the shared-memory channel');
        }
        $name = \substr($reply, 20, $r['nameLength']);
        $memory = SharedMemory::map($name, $r['segment']);
        if (!self::layoutFits($memory, $r['req'], $r['resp'], $r['segment'])) {
            \socket_close($control);
            throw new IpcException(\sprintf(
                'The shared-memory segment %s does not match the handshake (rings of %d and %d bytes in %d bytes; its header says %d and %d)',
                $name,
                $r['req'],
                $r['resp'],
                $r['segment'],
                $memory->requestCapacity,
                $memory->responseCapacity,
            ));
        }
        $mapped = \pack('VC', self::CONTROL_FLAG | 1, self::OP_SHM_MAPPED);
        @\socket_send($control, $mapped, \strlen($mapped), 0);
        [$toDaemon, $toClient] = \array_values($fds);
        if (!\is_resource($toDaemon) || !\is_resource($toClient)) {
            \socket_close($control);
            throw new IpcException('The doorbells did not arrive as streams');
        }

        return new self($control, $memory, $toDaemon, $toClient, $livenessInterval);
    }

    /**
     * Whether the rings the header describes are those of the handshake and lie inside the
     * mapping: the ring code trusts both from here on, and a read past the mapping would kill the
     * process rather than raise an error.
     */
    private static function layoutFits(SharedMemory $memory, int $requestCapacity, int $responseCapacity, int $segmentSize): bool
    {
        return $memory->requestCapacity === $requestCapacity
            && $memory->responseCapacity === $responseCapacity
            && $requestCapacity >= 16 && $requestCapacity % 8 === 0
            && $responseCapacity >= 16 && $responseCapacity % 8 === 0
            && self::DATA_OFFSET + $requestCapacity + $responseCapacity <= $segmentSize;
    }

    /**
     * @param array<string, mixed> $message socket_recvmsg()'s in/out array
     * @return int bytes received (0: EOF)
     */
    private static function awaitHandshakeReply(Socket $control, array &$message, float $timeout): int
    {
        $stream = \socket_export_stream($control);
        if ($stream === false) {
            \socket_close($control);
            throw new IpcException('Cannot wait on the shared-memory handshake socket');
        }
        $deadline = \microtime(true) + $timeout;
        do {
            try {
                Async::awaitReadable($stream, \max(0.0, $deadline - \microtime(true)));
            } catch (TimeoutException) {
                \socket_close($control);
                throw new IpcException(\sprintf('The shared-memory handshake timed out after %.1f s', $timeout));
            }
            $received = @\socket_recvmsg($control, $message, \MSG_DONTWAIT);
        } while ($received === false);

        return $received;
    }

    public function isOpen(): bool
    {
        return $this->open;
    }

    public function request(string $payload, ?Cancellation $cancellation): string
    {
        if (!$this->open) {
            throw $this->lost();
        }
        $length = \strlen($payload);
        $record = ($length + 15) & ~7;
        if ($record > $this->requestCapacity) {
            throw new IpcException(\sprintf('A %d-byte payload does not fit the %d-byte request ring', $length, $this->requestCapacity));
        }
        $id = $this->nextId;
        $this->nextId = $id === 0xFFFFFFFF ? 1 : $id + 1;
        // One pack() for header and payload; padding only when the length is not 8-aligned.
        $bytes = $record === $length + 8
            ? \pack('VVa*', $length + 4, $id, $payload)
            : \pack('VVa*', $length + 4, $id, $payload) . \substr(self::PADDING, 0, $record - $length - 8);
        $fiber = \Fiber::getCurrent();
        $caller = $fiber === null ? 0 : \spl_object_id($fiber);
        // The first request of a connection has no crowd to split: it goes out at once too
        // (a reconnect per request, as under PHP-FPM, would otherwise pay a loop turn for each).
        $mayGoAlone = $caller === $this->lastCaller || $this->lastCaller === -1;
        $this->lastCaller = $caller;
        if ($mayGoAlone && $this->lastDrained <= 1 && $this->outgoing === '' && !$this->router->hasWaiters()) {
            // A lone caller: straight into the ring, a deferred send costs a loop turn. (Right
            // after a big drain many fibers are about to send: sending the first alone would
            // split them. And only the fiber that sent the previous request: one answered at
            // once never suspends, so a crowd of fibers resumed together would otherwise go
            // one by one, each sending all its requests alone, instead of joining one batch.)
            $tail = $this->requestTail;
            $offset = $tail % $this->requestCapacity;
            $positions = $this->positions;
            if ($offset + $record <= $this->requestCapacity
                && $tail + $record - $positions[SharedMemory::REQUEST_HEAD] <= $this->requestCapacity) {
                FFI::memcpy($this->requestRing + $offset, $bytes, $record); // @phpstan-ignore binaryOp.invalid
                // x86-64 keeps stores in order, so the record is visible before the new tail.
                $this->requestTail = $positions[SharedMemory::REQUEST_TAIL] = $tail + $record;
                if (@\fwrite($this->toDaemon, self::DOORBELL) !== 8) {
                    $this->lose(new ConnectionLostException('The IPC daemon is gone (doorbell write failed)'));
                } else {
                    // On a shared vCPU the daemon has usually answered before the doorbell write
                    // returned: take the answer without the router when it is the only record.
                    $answer = $this->takeLoneAnswer($id);
                    if ($answer === null && ($this->yieldScore >= 16 || (++$this->yieldMisses & 15) === 0)) {
                        $answer = $this->yieldForLoneAnswer($id);
                    }
                    if ($answer !== null) {
                        return $answer;
                    }
                }
            } else {
                $this->outgoing = $bytes;
                $this->flush();
            }
        } elseif (!$this->flushScheduled) {
            $this->outgoing .= $bytes;
            // Requests of busy fibers collect during the loop tick and go into the ring with one
            // copy and one doorbell at its end.
            $this->flushScheduled = true;
            $this->flushInParts = $this->daemonRunsElsewhere();
            EventLoop::defer($this->flush(...));
        } else {
            $this->outgoing .= $bytes;
            if ($this->flushInParts && \strlen($this->outgoing) >= self::PART_BYTES) {
                // The daemon has a CPU of its own: let it start on this part while the crowd
                // goes on (on a shared CPU that would only add context switches).
                $this->flush();
            }
        }

        return $this->router->await($id, $cancellation, $this);
    }

    public function close(string $why = 'The IPC connection was closed'): void
    {
        if ($this->router->hasWaiters()) {
            $this->lose(new ConnectionLostException($why));
        } else {
            // Nobody to tell: no exception (and its backtrace) for a plain close or reconnect.
            $this->release($why);
        }
    }

    /**
     * Whether the daemon last served this ring on another CPU than the one we run on now: then
     * it works on a batch while we go on. Asked once per batch (a sched_getcpu() call).
     */
    private function daemonRunsElsewhere(): bool
    {
        $daemonCpu = $this->words[SharedMemory::DAEMON_CPU];

        return $daemonCpu !== self::CPU_UNKNOWN && $daemonCpu !== $this->memory->currentCpu();
    }

    /** Copies as many queued records as the ring takes and rings the doorbell once. */
    private function flush(): void
    {
        $this->flushScheduled = false;
        if (!$this->open || $this->outgoing === '') {
            return;
        }
        $capacity = $this->requestCapacity;
        $positions = $this->positions;
        $tail = $this->requestTail;
        $free = $capacity - ($tail - $positions[SharedMemory::REQUEST_HEAD]);
        $pending = $this->outgoing;
        $copied = 0;
        $total = \strlen($pending);
        while ($copied < $total) {
            $offset = $tail % $capacity;
            $contiguous = \min($free, $capacity - $offset);
            $take = $total - $copied;
            if ($take > $contiguous) {
                // Only whole records: walk them until the next one would not fit.
                $take = 0;
                while ($copied + $take < $total) {
                    $size = (self::u32($pending, $copied + $take) + 11) & ~7;
                    if ($take + $size > $contiguous) {
                        break;
                    }
                    $take += $size;
                }
            }
            if ($take === 0) {
                $first = (self::u32($pending, $copied) + 11) & ~7;
                if ($capacity - $offset < $first && $free >= $capacity - $offset + $first) {
                    // The next record does not fit before the end: skip to the start.
                    FFI::memcpy($this->requestRing + $offset, "\xFF\xFF\xFF\xFF", 4); // @phpstan-ignore binaryOp.invalid
                    $tail += $capacity - $offset;
                    $free -= $capacity - $offset;
                    continue;
                }
                break; // full: the daemon's next doorbell lets the leader flush the rest
            }
            \assert($take > 0);
            FFI::memcpy($this->requestRing + $offset, $copied === 0 && $take === $total ? $pending : \substr($pending, $copied, $take), $take); // @phpstan-ignore binaryOp.invalid
            $copied += $take;
            $tail += $take;
            $free -= $take;
        }
        if ($copied === 0) {
            return;
        }
        $this->outgoing = $copied === $total ? '' : \substr($pending, $copied);
        // x86-64 keeps stores in order, so the records are visible before the new tail.
        $this->requestTail = $positions[SharedMemory::REQUEST_TAIL] = $tail;
        $this->ringDoorbell();
    }

    /**
     * The answer to $id when it is the one and only record in the response ring, else null
     * (nothing there yet, other records, a wrap: the router's pump deals with those).
     */
    private function takeLoneAnswer(int $id): ?string
    {
        $head = $this->responseHead;
        $positions = $this->positions;
        $available = $positions[SharedMemory::RESPONSE_TAIL] - $head;
        $offset = $head % $this->responseCapacity;
        if ($available < 16 || $offset + $available > $this->responseCapacity) {
            return null;
        }
        $chunk = FFI::string($this->responseRing + $offset, $available); // @phpstan-ignore binaryOp.invalid
        $record = \unpack('V2', $chunk);
        \assert($record !== false); // $available >= 16
        if ($record[2] !== $id || (($record[1] + 11) & ~7) !== $available || $record[1] < 4) {
            return null;
        }
        $this->responseHead = $positions[SharedMemory::RESPONSE_HEAD] = $head + $available;
        $this->lastDrained = 1;
        if ($this->words[SharedMemory::DAEMON_STALLED] !== 0) {
            $this->ringDoorbell();
        }

        return \substr($chunk, 8, $record[1] - 4);
    }

    /**
     * The daemon was woken but has not run yet (the scheduler let us go on): on a shared vCPU
     * giving it the processor right away is much cheaper than a loop poll plus a doorbell read.
     * Whether that works is tracked like SocketConnection's reads-before-waiting (0…64): when
     * the daemon runs elsewhere, a yield finds nothing and yields stop, but for a probe every
     * 16th miss.
     */
    private function yieldForLoneAnswer(int $id): ?string
    {
        $this->memory->yieldProcessor();
        $answer = $this->takeLoneAnswer($id);
        $score = $this->yieldScore;
        $this->yieldScore = $answer !== null ? $score + ((64 - $score) >> 2) : $score - ($score >> 2) - ($score > 0 ? 1 : 0);

        return $answer;
    }

    private function ringDoorbell(): void
    {
        if ($this->open && @\fwrite($this->toDaemon, self::DOORBELL) !== 8) {
            $this->lose(new ConnectionLostException('The IPC daemon is gone (doorbell write failed)'));
        }
    }

    public function pump(?Cancellation $cancellation): void
    {
        if (!$this->open) {
            throw $this->lost();
        }
        $positions = $this->positions;
        $tail = (int) $positions[SharedMemory::RESPONSE_TAIL];
        $head = $this->responseHead;
        if ($tail !== $head) {
            $capacity = $this->responseCapacity;
            if ($tail < $head || $tail - $head > $capacity) {
                // FFI::string() with a length out of the ring's bounds would crash the process.
                $this->lose(new IpcException(\sprintf('The IPC daemon published a response position outside its ring (tail %d, head %d, capacity %d)', $tail, $head, $capacity)));
                throw $this->lost();
            }
            $router = $this->router;
            $drained = 0;
            while ($head !== $tail) {
                $offset = $head % $capacity;
                $run = \min($tail - $head, $capacity - $offset);
                \assert($run > 0); // head < tail <= head + capacity: checked above and at wrap markers
                // One copy of everything readable, then parse it in PHP.
                $chunk = FFI::string($this->responseRing + $offset, $run); // @phpstan-ignore binaryOp.invalid
                $pos = 0;
                while ($pos < $run) {
                    // Length word and id in one 64-bit little-endian read: one array element
                    // to build instead of two on the crowd's path.
                    $record = \unpack('P', $chunk, $pos);
                    if ($record === false) {
                        $this->lose(new IpcException('The IPC daemon wrote a truncated response record'));
                        throw $this->lost();
                    }
                    $size = $record[1] & 0xFFFFFFFF;
                    if ($size === self::WRAP) {
                        $head += $capacity - $offset;
                        if ($head > $tail) { // skipped past the published records
                            $this->lose(new IpcException('The IPC daemon wrote a malformed response record'));
                            throw $this->lost();
                        }
                        continue 2;
                    }
                    if ($size < 4 || $pos + 4 + $size > $run) {
                        $this->lose(new IpcException('The IPC daemon wrote a malformed response record'));
                        throw $this->lost();
                    }
                    $router->deliver(($record[1] >> 32) & 0xFFFFFFFF, \substr($chunk, $pos + 8, $size - 4));
                    $drained++;
                    $pos += ($size + 11) & ~7;
                }
                $head += $run;
            }
            $this->responseHead = $positions[SharedMemory::RESPONSE_HEAD] = $head;
            $this->lastDrained = $drained;
            if ($this->outgoing !== '' && !$this->flushScheduled) {
                $this->flush(); // the daemon made room in the request ring
            }
            if ($this->words[SharedMemory::DAEMON_STALLED] !== 0) {
                $this->ringDoorbell();
            }

            return;
        }
        // The doorbell never rings once the daemon is gone: check its lifeline now and then.
        $this->liveness ??= $this->watchLiveness();
        try {
            ($this->watcher ?? $this->watchDoorbell())->awaitReadable(null, $cancellation);
        } catch (StreamClosedException) {
            throw $this->lost();
        }
        @\fread($this->toClient, 8);
    }

    private function watchDoorbell(): StreamWatcher
    {
        // The daemon's eventfds are non-blocking already (the flag belongs to the file both
        // processes share); set here, not per connect, in case another daemon's are not.
        \stream_set_blocking($this->toClient, false);

        return $this->watcher = new StreamWatcher($this->toClient);
    }

    private function watchLiveness(): Timer
    {
        $weak = \WeakReference::create($this);

        return Timer::every($this->livenessInterval, static function () use ($weak): void {
            $weak->get()?->checkLiveness();
        })->unreference();
    }

    private function checkLiveness(): void
    {
        if (!$this->open) {
            return;
        }
        $byte = '';
        $n = @\socket_recv($this->control, $byte, 1, \MSG_PEEK | \MSG_DONTWAIT);
        if ($n === 0 || ($n === false && !\in_array(\socket_last_error($this->control), [\SOCKET_EAGAIN, \SOCKET_EWOULDBLOCK, \SOCKET_EINTR], true))) {
            $this->lose(new ConnectionLostException('The IPC daemon went away before answering'));
        }
    }

    /** The exception that tells why this connection ended. */
    private function lost(): \Throwable
    {
        return $this->lostReason ??= new ConnectionLostException($this->lostWhy);
    }

    /** Ends the connection with $reason, thrown into every waiting fiber. */
    private function lose(\Throwable $reason): void
    {
        if (!$this->open) {
            return;
        }
        $this->lostReason = $reason;
        $this->release($reason->getMessage());
        $this->router->failAll($reason);
    }

    private function release(string $why): void
    {
        if (!$this->open) {
            return;
        }
        $this->open = false;
        $this->lostWhy = $why;
        $this->liveness?->cancel();
        $this->watcher?->close();
        @\fclose($this->toDaemon);
        @\fclose($this->toClient);
        @\socket_close($this->control);
    }

    public function __destruct()
    {
        $this->liveness?->cancel();
    }

    /** The little-endian uint32 at $offset (a record's length word). */
    private static function u32(string $bytes, int $offset): int
    {
        $word = \unpack('V', $bytes, $offset);
        \assert($word !== false);

        return $word[1];
    }
}
