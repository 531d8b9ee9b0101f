<?php

declare(strict_types=1);

namespace Bobbin\Http;

/**
 * The process serving ends while requests are in the application's hands (exit() or die in a
 * handler, a fatal error such as an exhausted memory_limit): their clients get an answer — 500
 * for the request whose code ended the process, its fiber the one that terminated without
 * finishing; for the others what is known of them: a safe method (GET, HEAD, OPTIONS) changed
 * nothing, 503 with Retry-After; any other may have a statement with its database that commits
 * after this process is gone (the soak found thousands), so 504 with `"outcome":"unknown"`,
 * never the "not done, try again" 503 (docs/HTTP.md, "Three outcomes"). A client whose request
 * had arrived but not reached the application (queued behind the one that ended the process,
 * read in part, still in the socket, or — for a connection just accepted — arriving within
 * FIRST_BYTES_GRACE) gets 503 with Retry-After instead of a reset: nothing of it ran. Idle
 * connections are closed. The log names the requests. After a normal stop there are none, and
 * nothing is logged.
 *
 * Runs in a shutdown function, where the loop is gone: each answer is one best-effort fwrite()
 * on the non-blocking socket, then fclose().
 *
 * @internal made by Server::reportAbruptEnd()
 */
final class AbruptEnd
{
    /** Methods whose requests change nothing (RFC 9110, 9.2.1): answered "try again" when cut off. */
    private const SAFE_METHODS = ['GET' => true, 'HEAD' => true, 'OPTIONS' => true];
    /**
     * How long a connection accepted just before the end may take to send its request: a client
     * sends right after connecting, and a close before its bytes arrive would be a reset.
     */
    private const FIRST_BYTES_GRACE = 0.05;

    public function __construct(private readonly ServerContext $context)
    {
    }

    /** @param array<int, Connection> $connections */
    public function report(array $connections): void
    {
        $handled = $others = [];
        foreach ($connections as $connection) {
            $end = $connection->handOverAtEnd();
            if ($end === null) {
                continue;
            }
            if ($end->head !== null && $end->phase === ConnectionPhase::Handling) {
                $handled[] = $end;
            } else {
                $others[] = $end;
            }
        }
        // The requests in the application's hands first: their clients have waited longest.
        $requests = [];
        foreach ($handled as $end) {
            $requests[] = $this->answerHandled($end);
        }
        $this->awaitFirstBytes($others);
        $turnedAway = 0;
        foreach ($others as $end) {
            $turnedAway += (int) $this->turnAway($end);
        }
        if ($requests === [] && $turnedAway === 0) {
            return;
        }
        $error = \error_get_last();
        $fatal = $error !== null && ($error['type'] & (\E_ERROR | \E_CORE_ERROR | \E_COMPILE_ERROR | \E_USER_ERROR)) !== 0;
        $this->context->logger->critical('The process ended while handling {count} request(s): {requests}; {cause}{waiting}', [
            'count' => \count($requests),
            'requests' => $requests === [] ? 'none' : \implode(', ', $requests),
            'cause' => $fatal
                ? \sprintf('fatal error: %s in %s:%d', $error['message'], $error['file'], $error['line'])
                : 'exit() or die was called',
            'waiting' => $turnedAway === 0 ? '' : \sprintf('; %d request(s) not yet started were answered 503', $turnedAway),
        ]);
    }

    /** Answers a request in the application's hands (500 or 503) and describes it for the log. */
    private function answerHandled(ConnectionAtEnd $end): string
    {
        $head = $end->head;
        \assert($head !== null);
        $status = $end->fiberEnded ? 500 : (isset(self::SAFE_METHODS[$head->method]) ? 503 : 504);
        @\fwrite($end->socket, $this->context->framer->errorResponse($status, requestId: $end->requestId));
        @\fclose($end->socket);
        // An answer like any other: counted, so the totals match what clients received (the
        // worker's final metrics, sent after this, carry it).
        $this->context->metrics->requestDone($head->method, $status, \max(0.0, \microtime(true) - $end->handlingSince));

        return \sprintf('%s %s (request %s%s)', $head->method, $head->target, $end->requestId, $end->fiberEnded ? '; its code ended the process' : '');
    }

    /**
     * Waits (at most FIRST_BYTES_GRACE, once for all of them) until the connections accepted
     * with no request yet have one, so that turnAway() answers it instead of resetting it.
     *
     * @param list<ConnectionAtEnd> $ends
     */
    private function awaitFirstBytes(array $ends): void
    {
        $fresh = [];
        foreach ($ends as $end) {
            if ($end->fresh && !$end->requestBuffered && $end->phase === ConnectionPhase::Idle) {
                $fresh[(int) $end->socket] = $end->socket;
            }
        }
        $deadline = \microtime(true) + self::FIRST_BYTES_GRACE;
        while ($fresh !== [] && ($left = $deadline - \microtime(true)) > 0.0) {
            $read = \array_values($fresh);
            $write = $except = null;
            if (@\stream_select($read, $write, $except, 0, (int) ($left * 1e6)) < 1) {
                return;
            }
            foreach ($read as $socket) {
                unset($fresh[(int) $socket]);
            }
        }
    }

    /** Answers 503 when a request had arrived, closes; true when one was turned away. */
    private function turnAway(ConnectionAtEnd $end): bool
    {
        $waiting = $end->requestBuffered
            || $end->phase === ConnectionPhase::ReadingHead
            || $end->phase === ConnectionPhase::ReadingBody;
        if (!$waiting && $end->phase === ConnectionPhase::Idle) {
            // One byte tells: a read of a full buffer per connection could exhaust the memory left.
            $bytes = @\fread($end->socket, 1);
            $waiting = \is_string($bytes) && $bytes !== '';
        }
        if ($waiting) {
            @\fwrite($end->socket, $this->context->framer->errorResponse(503));
            $this->context->metrics->rejected(503); // counted before the worker's final metrics go out
        }
        @\fclose($end->socket);

        return $waiting;
    }
}
