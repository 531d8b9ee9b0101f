<?php

declare(strict_types=1);

namespace Bobbin\Ipc\Internal;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\StreamClosedException;
use Bobbin\Async\StreamWatcher;
use Bobbin\Async\TimeoutException;
use Bobbin\Async\Timer;
use Bobbin\Ipc\Codec\RequestRing;
use Bobbin\Ipc\Codec\ResponseRing;
use Bobbin\Ipc\Codec\SegmentOffer;
use Bobbin\Ipc\Codec\ShmHandshake;
use Bobbin\Ipc\ConnectTimeoutException;
use Bobbin\Ipc\ConnectionLostException;
use Bobbin\Ipc\IpcException;
use FFI;
use FFI\CData;
use Socket;

/**
 * A shared-memory channel: two rings in one segment the daemon created for us, an eventfd
 * doorbell each way, and the unix connection of the handshake kept open as the lifeline (the
 * daemon frees everything when it closes).
 *
 * The handshake (ShmHandshake) uses control frames, which no request frame can look like. Ring
 * records carry an id of this connection's own numbering. The rules of the rings (record
 * format, wrap markers, bounds of every position) are RequestRing's and ResponseRing's: this
 * class does the I/O (the positions in the header, the doorbells, the lifeline) and the batching.
 *
 * Over 400 lines: the shared-memory transport's I/O (header positions, doorbells, lifeline,
 * batching) is one state machine; the rings' rules live in RequestRing and ResponseRing.
 *
 * @internal
 */
final class ShmConnection extends AbstractConnection
{
    private const DOORBELL = "\x01\x00\x00\x00\x00\x00\x00\x00";
    /** A batch goes out in parts of about this size when the daemon runs on another CPU. */
    private const PART_BYTES = 65536;
    private const CPU_UNKNOWN = 0xFFFFFFFF;

    /** Made by the first wait on the doorbell: a lone caller answered at once never needs it. */
    private ?StreamWatcher $watcher = null;
    /** The segment header as uint64_t[] (indexes in SharedMemory). */
    private readonly CData $positions;
    /** The segment header as uint32_t[] (the daemon's stall flag). */
    private readonly CData $words;
    private readonly RequestRing $requests;
    private readonly ResponseRing $responses;
    private readonly MappedRing $requestMemory;
    private readonly MappedRing $responseMemory;
    /** char* to the request ring's first byte, for the lone caller's write. */
    private readonly CData $requestStart;
    /** char* to the response ring's first byte, for the lone caller's read. */
    private readonly CData $responseStart;
    /** Bytes ever produced into the request ring: what we publish as its tail. */
    private int $requestTail;
    /** Bytes ever consumed from the response ring: what we publish as its head. */
    private int $responseHead;
    /** Id of the next ring record (u32, 0 skipped). */
    private int $nextId = 1;
    private bool $flushScheduled = false;
    /** Whether the batch collecting this tick goes out in parts (see PART_BYTES). */
    private bool $flushInParts = false;
    /** Records (8-byte aligned) waiting for the end of the tick or for ring space. */
    private string $outgoing = '';
    /** Responses found by the last drain of the response ring. */
    private int $lastDrained = 0;
    /** How often a yield to the daemon lately produced the answer (see yieldForLoneAnswer()). */
    private int $yieldScore = 64;
    private int $yieldMisses = 0;
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
        SegmentOffer $segment,
        int $requestTail,
        int $responseHead,
    ) {
        parent::__construct();
        $this->positions = $memory->positions;
        $this->words = $memory->words;
        $this->requestStart = $memory->pointer(SegmentOffer::RINGS_OFFSET);
        $this->requestMemory = new MappedRing($memory, $this->requestStart);
        $this->responseStart = $memory->pointer($segment->responseRingOffset());
        $this->responseMemory = new MappedRing($memory, $this->responseStart);
        $this->requests = new RequestRing($segment->requestCapacity);
        $this->responses = new ResponseRing($segment->responseCapacity);
        $this->requestTail = $requestTail;
        $this->responseHead = $responseHead;
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
        $hello = ShmHandshake::open($ringCapacity);
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
        $fds = $message['control'][0]['data'] ?? [];
        try {
            if (\count($fds) !== 2) {
                throw new IpcException('Bad shared-memory handshake reply');
            }
            $segment = ShmHandshake::offer($message['iov'][0] ?? '');
            $memory = SharedMemory::map($segment->name, $segment->segmentSize);
            // Read once: what was checked is what the rings start from.
            $requestTail = (int) $memory->positions[SharedMemory::REQUEST_TAIL];
            $responseHead = (int) $memory->positions[SharedMemory::RESPONSE_HEAD];
            $segment->checkHeader($memory->requestCapacity, $memory->responseCapacity, $requestTail, $responseHead);
        } catch (IpcException $e) {
            \socket_close($control);
            throw $e;
        }
        $mapped = ShmHandshake::mapped();
        @\socket_send($control, $mapped, \strlen($mapped), 0);
        [$toDaemon, $toClient] = \array_values($fds);
        if (!\is_resource($toDaemon) || !\is_resource($toClient)) {
            \socket_close($control);
            throw new IpcException('The doorbells did not arrive as streams');
        }

        return new self($control, $memory, $toDaemon, $toClient, $livenessInterval, $segment, $requestTail, $responseHead);
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
                throw new ConnectTimeoutException(\sprintf('The shared-memory handshake timed out after %.1f s', $timeout));
            }
            $received = @\socket_recvmsg($control, $message, \MSG_DONTWAIT);
        } while ($received === false);

        return $received;
    }

    public function request(string $payload, ?Cancellation $cancellation): string
    {
        if (!$this->open) {
            throw $this->lost();
        }
        $id = $this->nextId;
        $bytes = $this->requests->record($id, $payload);
        $this->nextId = $id === 0xFFFFFFFF ? 1 : $id + 1;
        if ($this->isSameCaller() && $this->lastDrained <= 1 && $this->outgoing === '' && !$this->reader->isReading()) {
            // A lone caller: straight into the ring, a deferred send costs a loop turn. (Right
            // after a big drain many fibers are about to send: sending the first alone would
            // split them.) Not through flush(): this is the path where a call shows.
            $positions = $this->positions;
            $tail = $this->requestTail;
            $size = \strlen($bytes);
            try {
                $offset = $this->requests->claim($tail, (int) $positions[SharedMemory::REQUEST_HEAD], $size);
            } catch (IpcException $violation) {
                $this->lose($violation);
                throw $this->lost();
            }
            if ($offset < 0) {
                $this->outgoing = $bytes; // to wrap, or to wait for room
                $this->flush();
            } else {
                FFI::memcpy($this->requestStart + $offset, $bytes, $size); // @phpstan-ignore binaryOp.invalid
                // x86-64 keeps stores in order, so the record is visible before the new tail.
                $this->requestTail = $positions[SharedMemory::REQUEST_TAIL] = $tail + $size;
                if (@\fwrite($this->toDaemon, self::DOORBELL) !== 8) {
                    $this->lose(new ConnectionLostException('The IPC daemon is gone (doorbell write failed)'));
                } else {
                    // On a shared vCPU the daemon has usually answered before the doorbell write
                    // returned: take the answer without the shared reader when it is the only record.
                    $answer = $this->takeLoneAnswer($id);
                    if ($answer === null && ($this->yieldScore >= 16 || (++$this->yieldMisses & 15) === 0)) {
                        $answer = $this->yieldForLoneAnswer($id);
                    }
                    if ($answer !== null) {
                        return $answer;
                    }
                }
            }
        } elseif (!$this->flushScheduled) {
            $this->outgoing .= $bytes;
            // Requests of busy fibers collect during the loop tick and go into the ring with one
            // copy and one doorbell at its end.
            $this->flushScheduled = true;
            $this->flushInParts = $this->daemonRunsElsewhere();
            Async::defer($this->flush(...));
        } else {
            $this->outgoing .= $bytes;
            if ($this->flushInParts && \strlen($this->outgoing) >= self::PART_BYTES) {
                // The daemon has a CPU of its own: let it start on this part while the crowd
                // goes on (on a shared CPU that would only add context switches).
                $this->flush();
            }
        }

        /** @var string $answer */
        $answer = $this->reader->await($id, $cancellation, $this);

        return $answer;
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
        $pending = $this->outgoing;
        if (!$this->open || $pending === '') {
            return;
        }
        $positions = $this->positions;
        $tail = $this->requestTail;
        try {
            $copied = $this->requests->push($pending, $tail, (int) $positions[SharedMemory::REQUEST_HEAD], $this->requestMemory);
        } catch (IpcException $violation) {
            $this->lose($violation);

            return;
        }
        if ($copied === 0) {
            return; // full: the daemon's next doorbell lets the leader flush the rest
        }
        $this->outgoing = $copied === \strlen($pending) ? '' : \substr($pending, $copied);
        // x86-64 keeps stores in order, so the records are visible before the new tail.
        $this->requestTail = $positions[SharedMemory::REQUEST_TAIL] = $tail;
        $this->ringDoorbell();
    }

    /**
     * The answer to $id when it is the one and only record in the response ring, else null
     * (nothing there yet, other records, a wrap: the shared reader's read deals with those).
     */
    private function takeLoneAnswer(int $id): ?string
    {
        $positions = $this->positions;
        $head = $this->responseHead;
        $tail = (int) $positions[SharedMemory::RESPONSE_TAIL];
        $offset = $this->responses->soleOffset($head, $tail);
        if ($offset < 0) {
            return null;
        }
        $length = $tail - $head;
        \assert($length >= 16); // soleOffset() checked
        // Read here, not through $this->responseMemory: see ResponseRing::soleOffset().
        $answer = $this->responses->takeSole(FFI::string($this->responseStart + $offset, $length), $id); // @phpstan-ignore binaryOp.invalid
        if ($answer === null) {
            return null;
        }
        $this->responseHead = $positions[SharedMemory::RESPONSE_HEAD] = $tail;
        $this->lastDrained = 1;
        if ($this->words[SharedMemory::DAEMON_STALLED] !== 0) {
            $this->ringDoorbell();
        }

        return $answer;
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

    /** @internal the SharedReader's (Async\ReplySource) */
    public function readReplies(?Cancellation $cancellation, bool $first): void
    {
        if (!$this->open) {
            throw $this->lost();
        }
        $positions = $this->positions;
        $tail = (int) $positions[SharedMemory::RESPONSE_TAIL];
        if ($tail !== $this->responseHead) {
            try {
                $this->lastDrained = $this->responses->drain($this->responseHead, $tail, $this->responseMemory, $this->reader);
            } catch (IpcException $violation) {
                $this->lose($violation);
                throw $this->lost();
            }
            $this->responseHead = $positions[SharedMemory::RESPONSE_HEAD] = $tail;
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

    protected function releaseResources(): void
    {
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
}
