<?php

declare(strict_types=1);

namespace Bobbin\Http;

use Bobbin\Async\CancellationSource;
use Bobbin\Async\TimeoutException;
use Psr\Log\LoggerInterface;

/**
 * What a connection whose deadline passed (OpenConnections::sweep() calls Connection::expire())
 * is answered and counted as: a request head or body not complete in time, 408; an idle
 * keep-alive connection or a response stuck on a client that does not read, closed quietly. A
 * request in the application's hands is first cancelled and given FailedRequest::SETTLE_SECONDS
 * to say what became of it — a write a 503 called "not done" must not commit a moment later —
 * and answered 504, outcome unknown, only when it is still running after that. Apart from
 * Connection because it runs only when a deadline passes, never on a request's way.
 *
 * @internal owned by OpenConnections, used by Connection::expire()
 */
final class ConnectionTimeouts
{
    public function __construct(
        private readonly ServerConfig $config,
        private readonly LoggerInterface $logger,
        private readonly ConnectionStatistics $statistics,
    ) {
    }

    /**
     * A request in the application's hands passed --request-timeout: counted, logged and
     * cancelled, so that it ends and tells what became of it (FailedRequest).
     *
     * @return float the connection's new deadline: the end of the request's settle time
     */
    public function cancelLateRequest(?RequestHead $head, string $requestId, ?CancellationSource $cancellation): float
    {
        $this->statistics->dropped(ConnectionDrop::RequestTimeout);
        $this->logger->warning('{method} {target} (request {request_id}) still running after --request-timeout of {seconds} s; cancelled it, and waits up to {settle} s for what became of it', [
            'method' => $head?->method, 'target' => $head?->target, 'request_id' => $requestId,
            'seconds' => $this->config->requestTimeout, 'settle' => FailedRequest::SETTLE_SECONDS,
        ]);
        $deadline = \microtime(true) + FailedRequest::SETTLE_SECONDS;
        $cancellation?->cancel(new TimeoutException(\sprintf(
            'The request passed its deadline (--request-timeout of %s s)',
            $this->config->requestTimeout,
        )));

        return $deadline;
    }

    /**
     * The deadline of $phase passed (for Handling: the settle time after cancelLateRequest()):
     * counts it and says what the client is answered before the connection closes.
     *
     * @return int the status to answer, 0 for none
     */
    public function statusAt(ConnectionPhase $phase, ?RequestHead $head, string $requestId): int
    {
        switch ($phase) {
            case ConnectionPhase::ReadingHead:
                $this->statistics->dropped(ConnectionDrop::HeadTimeout);

                return 408;
            case ConnectionPhase::ReadingBody:
                $this->statistics->dropped(ConnectionDrop::BodyTimeout);

                return 408;
            case ConnectionPhase::Handling:
                $this->logger->warning('{method} {target} (request {request_id}) still running {settle} s after its cancellation: answered 504, outcome unknown', [
                    'method' => $head?->method, 'target' => $head?->target, 'request_id' => $requestId, 'settle' => FailedRequest::SETTLE_SECONDS,
                ]);

                return 504;
            case ConnectionPhase::Idle:
                $this->statistics->dropped(ConnectionDrop::IdleTimeout);

                return 0;
            case ConnectionPhase::Writing:
                $this->statistics->dropped(ConnectionDrop::WriteTimeout);

                return 0;
            case ConnectionPhase::Streaming:
                // The head is out: the response can only be cut.
                $this->logger->warning('{method} {target} (request {request_id}): the response body gave no next piece within --request-timeout of {seconds} s; the response was cut', [
                    'method' => $head?->method, 'target' => $head?->target, 'request_id' => $requestId, 'seconds' => $this->config->requestTimeout,
                ]);

                return 0;
            case ConnectionPhase::Closing:
                return 0;
        }
    }
}
