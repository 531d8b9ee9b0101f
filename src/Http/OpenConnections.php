<?php

declare(strict_types=1);

namespace Bobbin\Http;

use Bobbin\Async\Async;
use Bobbin\Async\CancelledException;
use Closure;
use Psr\Log\LoggerInterface;
use Revolt\EventLoop;

/**
 * The open connections of one server and the rules that keep room among them, so that no mix
 * of idle, slow or hostile clients can keep a new client out:
 *
 * - the sweeper expires connections whose phase deadline passed, and drops a client that sends
 *   its request or reads its response below --min-data-rate, measured over windows of
 *   --data-rate-window seconds;
 * - at the connection limit, a new client gets the place of a connection that is lingering
 *   after its last response, else of the longest-idle keep-alive connection (as nginx reuses
 *   them), else of the client furthest below the minimum rate; only connections whose request
 *   is being handled or moving at a fair rate are never closed for room;
 * - reaching the limit and every closed connection is counted, and logged at most once per
 *   REPORT_SECONDS with the counts since the last line.
 *
 * @internal owned by Server; connections report here when they close
 */
final class OpenConnections
{
    private const REPORT_SECONDS = 10.0;
    /** A connection that has not sent a byte yet is not taken for idle before this age. */
    private const FRESH_SECONDS = 0.1;
    /** A rate is judged for room only once this much of its window has passed. */
    private const RATE_JUDGED_AFTER_SECONDS = 1.0;
    private const REPORTED = [ConnectionDrop::IdleForRoom, ConnectionDrop::SlowForRoom, ConnectionDrop::SlowHead, ConnectionDrop::SlowBody, ConnectionDrop::SlowRead];

    /** @var array<int, Connection> */
    private array $open = [];
    /** @var array<int, Connection> parked connections by their socket's resource id */
    private array $parked = [];
    /** @var array<int, Closure(): void> how each upgraded connection's protocol hears of a graceful stop, by connection */
    private array $goAway = [];
    /** @var (Closure(string, mixed): void)|null the loop callback of every parked socket */
    private ?Closure $unparkOnData = null;
    /** Set once a graceful stop began: connections finish their request and close. */
    public bool $stopping = false;
    /** During a stop: the latest moment an idle keep-alive connection stays open (0: close idle ones at once). */
    public float $idleGraceUntil = 0.0;
    /** The connection limit in force: --max-connections, or less where descriptors do not allow it. */
    public int $limit;
    public readonly ConnectionStatistics $statistics;
    /** What a passed deadline means for a connection (Connection::expire()). */
    public readonly ConnectionTimeouts $timeouts;
    private float $reportedAt = 0.0;
    /** @var array<string, int> counts at the last report line */
    private array $reportedCounts = [];
    private readonly int $minDataRate;
    private readonly float $dataRateWindow;

    /** @param Closure(): void $onClosed called after a connection closed (room for the accept loop) */
    public function __construct(
        ServerConfig $config,
        private readonly LoggerInterface $logger,
        private readonly Closure $onClosed,
    ) {
        $this->limit = $config->maxConnections;
        $this->minDataRate = $config->minDataRate;
        $this->dataRateWindow = $config->dataRateWindow;
        $this->statistics = new ConnectionStatistics();
        $this->timeouts = new ConnectionTimeouts($config, $logger, $this->statistics);
    }

    /**
     * Watches a parked connection's socket for the client's next bytes. One callback serves
     * every parked connection (a closure each would be ~0.5 KiB of heap per idle client).
     *
     * @param resource $socket
     * @return string the loop watch, for unwatchParked()
     */
    public function watchParked(Connection $connection, mixed $socket): string
    {
        $this->parked[(int) $socket] = $connection;

        return Async::watchReadable($socket, $this->unparkOnData ??= function (string $watch, mixed $socket): void {
            ($this->parked[(int) $socket] ?? null)?->unpark();
        });
    }

    /**
     * Pauses the watch of a connection that a fiber serves again (unpark()); watchParkedAgain()
     * resumes it when it waits for its next request: no watch made and dropped per request.
     */
    public function pauseParked(string $watch): void
    {
        EventLoop::disable($watch);
    }

    public function watchParkedAgain(string $watch): void
    {
        EventLoop::enable($watch);
    }

    /** @param resource $socket */
    public function unwatchParked(string $watch, mixed $socket): void
    {
        Async::cancelWatch($watch);
        unset($this->parked[(int) $socket]);
    }

    public function add(Connection $connection): void
    {
        $this->open[\spl_object_id($connection)] = $connection;
        $this->statistics->accepted++;
    }

    /**
     * For an upgraded connection: $goAway runs when a graceful stop begins (at once when one has
     * begun), so that the new protocol ends on its own terms (a WebSocket's close 1001) rather
     * than being cut at the drain deadline. It runs in the stop's caller: it must not wait.
     *
     * @param Closure(): void $goAway
     */
    public function onGracefulStop(Connection $connection, Closure $goAway): void
    {
        if ($this->stopping) {
            $goAway();

            return;
        }
        $this->goAway[\spl_object_id($connection)] = $goAway;
    }

    /** Server::stop(): tells each upgraded connection (onGracefulStop()). */
    public function stopUpgraded(): void
    {
        $goAway = $this->goAway;
        $this->goAway = [];
        foreach ($goAway as $tell) {
            $tell();
        }
    }

    /** Called by Connection::close(). */
    public function closed(Connection $connection): void
    {
        unset($this->open[\spl_object_id($connection)], $this->goAway[\spl_object_id($connection)]);
        ($this->onClosed)();
    }

    public function count(): int
    {
        return \count($this->open);
    }

    public function isFull(): bool
    {
        return \count($this->open) >= $this->limit;
    }

    /** @return array<int, Connection> */
    public function all(): array
    {
        return $this->open;
    }

    /**
     * At the limit, with a client waiting to be accepted: closes the connection that is worth
     * least (see the class comment). False when every connection is worth keeping.
     */
    public function makeRoom(float $now): bool
    {
        $this->statistics->limitReached++;
        $victim = null;
        $rank = 3;
        $since = \INF;
        $minRate = $this->minDataRate;
        foreach ($this->open as $connection) {
            $phase = $connection->phase;
            if ($phase === ConnectionPhase::Closing) {
                $victim = $connection;
                $rank = 0;
                break;
            }
            if ($phase === ConnectionPhase::Idle) {
                if (($rank > 1 || $connection->phaseSince < $since)
                    && ($connection->requests > 0 || $now - $connection->phaseSince >= self::FRESH_SECONDS)) {
                    $victim = $connection;
                    $rank = 1;
                    $since = $connection->phaseSince;
                }
                continue;
            }
            // An upgraded connection (a WebSocket) keeps its own time: a quiet chat member is
            // no slow client, and its rate window stopped counting at the 101.
            if ($rank < 2 || $minRate === 0 || $phase === ConnectionPhase::Handling || $phase === ConnectionPhase::Streaming
                || $phase === ConnectionPhase::Upgraded) {
                continue;
            }
            $elapsed = $now - $connection->windowStart;
            if ($elapsed >= self::RATE_JUDGED_AFTER_SECONDS && $connection->windowBytes < $minRate * $elapsed
                && ($rank > 2 || $connection->phaseSince < $since)) {
                $victim = $connection;
                $rank = 2;
                $since = $connection->phaseSince;
            }
        }
        if ($victim === null) {
            $this->statistics->limitWaits++;
            $this->report($now);

            return false;
        }
        $reason = $rank === 2 ? ConnectionDrop::SlowForRoom : ConnectionDrop::IdleForRoom;
        $this->statistics->dropped($reason);
        $victim->drop($reason);
        $this->report($now);

        return true;
    }

    /** The sweeper's round: deadlines, clients that hung up on a handled request, the minimum data rate, and the report line when due. */
    public function sweep(float $now): void
    {
        $minRate = $this->minDataRate;
        $window = $this->dataRateWindow;
        foreach ($this->open as $connection) {
            if ($connection->deadline < $now) {
                $connection->expire();
                continue;
            }
            if ($connection->phase === ConnectionPhase::Handling || $connection->phase === ConnectionPhase::Streaming) {
                self::checkForHangUp($connection);
                continue;
            }
            if ($connection->phase === ConnectionPhase::Idle) {
                if ($now - $connection->phaseSince >= Connection::PARK_AFTER_SECONDS) {
                    $connection->park();
                }
                continue;
            }
            if ($minRate === 0 || $now - $connection->windowStart < $window) {
                continue;
            }
            $reason = match ($connection->phase) {
                ConnectionPhase::ReadingHead => ConnectionDrop::SlowHead,
                ConnectionPhase::ReadingBody => ConnectionDrop::SlowBody,
                ConnectionPhase::Writing => ConnectionDrop::SlowRead,
                default => null,
            };
            if ($reason === null) {
                continue;
            }
            if ($connection->windowBytes < $minRate * ($now - $connection->windowStart)) {
                $this->statistics->dropped($reason);
                $connection->drop($reason);
            } else {
                $connection->windowStart = $now;
                $connection->windowBytes = 0;
            }
        }
        $this->report($now);
    }

    /** Logs what happened since the last line, at most once per REPORT_SECONDS. */
    private function report(float $now): void
    {
        if ($now - $this->reportedAt < self::REPORT_SECONDS) {
            return;
        }
        $statistics = $this->statistics;
        $counts = ['limit' => $statistics->limitReached, 'waits' => $statistics->limitWaits];
        foreach (self::REPORTED as $reason) {
            $counts[$reason->value] = $statistics->droppedFor($reason);
        }
        if ($counts === $this->reportedCounts || ($this->reportedCounts === [] && \array_sum($counts) === 0)) {
            return;
        }
        $reported = $this->reportedCounts;
        $delta = static fn (string $key): int => $counts[$key] - ($reported[$key] ?? 0);
        $parts = [];
        foreach (self::REPORTED as $reason) {
            if (($n = $delta($reason->value)) > 0) {
                $parts[] = $n . ' ' . $reason->describe();
            }
        }
        if (($waits = $delta('waits')) > 0) {
            $parts[] = $waits . ' time(s) no connection could be closed, so new clients waited';
        }
        $since = $this->reportedAt === 0.0 ? 'since start' : \sprintf('in the last %.0f s', $now - $this->reportedAt);
        if (($limit = $delta('limit')) > 0) {
            $this->logger->warning('Connection limit of {limit} reached {times} time(s) {since}: {details}', [
                'limit' => $this->limit, 'times' => $limit, 'since' => $since, 'details' => \implode('; ', $parts),
            ]);
        } elseif ($parts !== []) {
            $this->logger->warning('Dropped slow clients {since}: {details}', ['since' => $since, 'details' => \implode('; ', $parts)]);
        }
        $this->reportedCounts = $counts;
        $this->reportedAt = $now;
    }

    /**
     * A client that hung up while its request is handled or its streamed body's source produces
     * cancels the request (its statement on the database, the stream), when anything waits on
     * that cancellation. Data sent meanwhile (pipelined) is no hang-up.
     */
    private static function checkForHangUp(Connection $connection): void
    {
        $cancellation = $connection->cancellation->source;
        // Only a request something waited on (a database statement) is worth the check: a check
        // per sweep costs only the long requests, where a loop watch would cost every request.
        if ($cancellation === null || !$cancellation->wasWaitedOn() || $connection->isClosed() || $connection->phase === ConnectionPhase::Writing || !Async::isReadableNow($connection->socket)) {
            return;
        }
        $peek = @\stream_socket_recvfrom($connection->socket, 1, \STREAM_PEEK);
        if ($peek === '' || $peek === false) {
            $cancellation->cancel(new CancelledException('The client closed the connection before the response'));
            $connection->close();
        }
    }
}
