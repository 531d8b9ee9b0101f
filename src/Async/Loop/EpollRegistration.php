<?php

declare(strict_types=1);

namespace Bobbin\Async\Loop;

/**
 * One descriptor registered with epoll: what the kernel was told ($armed) and what the streams
 * on it want now ($wanted). Usually one stream; two when PHP holds two stream resources on one
 * open descriptor (pg_socket() makes a new one per call).
 *
 * @internal
 */
final class EpollRegistration
{
    /** Event bits registered with the kernel: may exceed $wanted until an unwanted event comes. */
    public int $armed = 0;
    /** Union of $masks. */
    public int $wanted = 0;
    /** @var array<int, int> wanted event bits by stream key */
    public array $masks = [];
    /** @var array<int, resource> the streams by key */
    public array $streams = [];
    /** Whether one stream only is registered here: then it is $key and $stream (the fast path). */
    public bool $single = true;
    public int $key = -1;
    /** @var resource|null */
    public mixed $stream = null;

    /** @param int $token what epoll reports this registration's events with; never reused */
    public function __construct(public readonly int $fd, public readonly int $token)
    {
    }

    /** @param resource $stream */
    public function add(int $key, mixed $stream, int $bits): void
    {
        $this->streams[$key] = $stream;
        $this->masks[$key] = ($this->masks[$key] ?? 0) | $bits;
        $this->wanted |= $bits;
        $this->noteSingle();
    }

    public function remove(int $key, int $bits): void
    {
        $this->masks[$key] &= ~$bits;
        $this->wanted = \count($this->masks) === 1 ? $this->masks[$key] : self::union($this->masks);
    }

    /** Forgets the streams PHP has closed since; true when none is left open. */
    public function dropClosedStreams(): bool
    {
        foreach ($this->streams as $key => $stream) {
            if (!\is_resource($stream)) {
                unset($this->streams[$key], $this->masks[$key]);
            }
        }
        $this->wanted = self::union($this->masks);
        $this->noteSingle();

        return $this->streams === [];
    }

    private function noteSingle(): void
    {
        $this->single = \count($this->masks) === 1;
        if ($this->single) {
            $this->key = (int) \array_key_first($this->masks);
            $this->stream = $this->streams[$this->key];
        }
    }

    /** @param array<int, int> $masks */
    private static function union(array $masks): int
    {
        $union = 0;
        foreach ($masks as $mask) {
            $union |= $mask;
        }

        return $union;
    }
}
