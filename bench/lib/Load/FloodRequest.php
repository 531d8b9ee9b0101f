<?php

declare(strict_types=1);

namespace Bobbin\Bench\Load;

/** One request of FloodClient, from its connect to its outcome. */
final class FloodRequest
{
    public bool $sent = false;
    public string $buffer = '';
    public readonly float $began;

    /** @param resource $socket */
    public function __construct(public readonly mixed $socket, public readonly string $stream, public readonly string $request)
    {
        $this->began = \microtime(true);
    }

    /** @return array{status: int|string, seconds: float, retryAfter: bool, detail?: string} */
    public function outcome(?string $status = null): array
    {
        if ($status === null) {
            $end = \strpos($this->buffer, "\r\n\r\n");
            if ($end !== false && \preg_match('~^HTTP/1\.[01] (\d{3})~', $this->buffer, $match) === 1) {
                return [
                    'status' => (int) $match[1],
                    'seconds' => \microtime(true) - $this->began,
                    'retryAfter' => \preg_match('~\r\nretry-after:~i', \substr($this->buffer, 0, $end + 2)) === 1,
                ];
            }
            $status = 'reset';
        }

        return [
            'status' => $status,
            'seconds' => \microtime(true) - $this->began,
            'retryAfter' => false,
            // What a reset looked like: refused (never written), or closed after N bytes.
            'detail' => $this->sent ? \sprintf('closed after %d bytes: %s', \strlen($this->buffer), \json_encode($this->buffer)) : 'connect or write failed',
        ];
    }
}
