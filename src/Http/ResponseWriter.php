<?php

declare(strict_types=1);

namespace Bobbin\Http;

use Bobbin\Async\CancelledException;
use Bobbin\Async\FileSender;
use Bobbin\Async\StreamClosedException;
use Bobbin\Http\WebSocket\PerMessageDeflate;
use Bobbin\Http\WebSocket\WebSocket;
use Bobbin\Http\WebSocket\WebSocketOptions;
use Bobbin\Http\WebSocket\WebSocketUpgrade;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Throwable;

/**
 * Puts the application's response on a connection: framed by ResponseFramer (a response it
 * refuses goes out as a 500 instead), the connection in its write phase, the usual response in
 * one write, a streamed body through ResponseBodyWriter, the connection Streaming while the
 * body's source produces and Writing while a piece goes out. Apart from Connection, which keeps reading and the writes themselves
 * (Connection::writeAll()); called once per response in place of Connection's own method, so
 * a request pays no extra call for it. Parameters a request passes are typed by @param, not
 * declared (docs/ASYNC.md, Rules: PHP 8.2's JIT checks a declared class type with a call).
 *
 * @internal one per server (ServerContext), used by its connections
 */
final class ResponseWriter
{
    /** Streams bodies: made for the first that is not written in one piece (a hello server never loads it). */
    private ?ResponseBodyWriter $bodyWriter = null;

    public function __construct(private readonly ServerContext $context)
    {
    }

    /**
     * Writes $response on $connection.
     *
     * Called per request: the class types of $connection, $response and $head are the
     * analyser's, not run-time checks (docs/ASYNC.md, Rules).
     *
     * @param Connection $connection
     * @param ResponseInterface $response
     * @param RequestHead $head
     * @param bool $keepAlive whether another request may follow; set to whether it still may
     * @param int $status set to the status sent
     * @param-out int $status
     * @return bool whether the connection is still whole
     */
    public function respond($connection, $response, $head, bool &$keepAlive, string $requestId, ?int &$status): bool
    {
        $context = $this->context;
        if (WebSocketUpgrade::$pending !== [] && ($upgrade = WebSocketUpgrade::take($requestId)) !== null && $response->getStatusCode() === 101) {
            $status = 101;
            $keepAlive = false;

            return $this->upgrade($connection, $response, ...$upgrade);
        }
        if ($context->compression !== null) {
            $response = $context->compression->apply($response, $head->method, $head->headers);
        }
        try {
            $framed = $context->framer->frame($response, $head->method, $head->protocolVersion, $keepAlive, HttpDate::headerLine(), $head->requestId === null ? "X-Request-Id: {$requestId}\r\n" : '');
        } catch (InvalidResponseException $error) {
            $context->logger->error('The response to {method} {target} (request {request_id}) was refused, a 500 went out instead: {error}', [
                'method' => $head->method, 'target' => $head->target, 'request_id' => $requestId, 'error' => $error->getMessage(),
            ]);
            $status = 500;
            $connection->cancellation->end();
            // Its body goes nowhere: a body that holds something until it is read or closed
            // (a framework's streamed callback, the request gate) lets go now.
            $response->getBody()->close();

            return $this->respondWithError($connection, 500, $keepAlive, null, $requestId);
        }
        $status = $response->getStatusCode();
        $connection->headBytes += \strlen($framed->head);
        $connection->phase = ConnectionPhase::Writing;
        if ($framed->bytes !== null) {
            // The usual response, one write: its write phase's clock and window start only if
            // it has to wait for the client (Connection::writeAll()), since nobody looks at a
            // connection's phase until its fiber waits (saves two clock reads per request).
            // The request is done with: a client leaving now cancels nothing (terminate()).
            $connection->cancellation->source = null; // end(), without the call
            $connection->cancellation->request = 0;
            $connection->phaseSince = 0.0;
            $written = $connection->writeAll($framed->bytes);
            $keepAlive = $written && $framed->keepAlive;

            return $written;
        }
        // A streamed body waits on its source before each piece (a generator, a framework's
        // streamed callback: an event stream may wait minutes): meanwhile the connection is
        // Streaming, its next piece due within the request timeout, and the client is not
        // judged on a rate it cannot reach; each write is judged as a write.
        $config = $context->config;
        $connection->phase = ConnectionPhase::Streaming;
        $connection->phaseSince = $connection->windowStart = \microtime(true);
        $connection->windowBytes = 0;
        $connection->deadline = $connection->phaseSince + $config->requestTimeout;
        try {
            if ($framed->body instanceof StaticFiles\FileBody && ($sender = FileSender::instance()) !== null) {
                // A large static file: sendfile(), no byte through PHP (a small one went in the
                // head's write). Its source never waits: it is a write from the start.
                $connection->phase = ConnectionPhase::Writing;
                $connection->deadline = $connection->phaseSince + $config->writeTimeout;
                $whole = StaticFiles\FileSending::write($connection, $framed, $framed->body, $sender, $config->writeTimeout);
                if ($whole !== null) {
                    $keepAlive = $whole && $framed->keepAlive;

                    return $whole;
                }
            }
            $this->bodyWriter ??= new ResponseBodyWriter($context->logger);
            $keepAlive = $this->bodyWriter->write($framed, static function (string $data) use ($connection, $config): void {
                $connection->phase = ConnectionPhase::Writing;
                $connection->phaseSince = $connection->windowStart = \microtime(true);
                $connection->windowBytes = 0;
                $connection->deadline = $connection->phaseSince + $config->writeTimeout;
                // Closed while the source produced (the client hung up: OpenConnections::checkForHangUp()).
                if ($connection->isClosed() || !$connection->writeAll($data)) {
                    throw new WriteFailedException();
                }
                $connection->phase = ConnectionPhase::Streaming;
                $connection->deadline = \microtime(true) + $config->requestTimeout;
            }, static function (string $data) use ($connection, $config): ?string {
                // A streamed callback's flush(), from its fiber: what the socket takes, never a wait.
                $written = $connection->isClosed() ? false : @\fwrite($connection->socket, $data);
                if ($written === false) {
                    return null;
                }
                $connection->windowBytes += $written;
                $connection->sent += $written;
                $connection->deadline = \microtime(true) + $config->requestTimeout;

                return (string) \substr($data, $written);
            });

            return true;
        } catch (WriteFailedException) {
            $keepAlive = false;
            // The client left mid-stream: the body's source stops (its waits take the cancellation).
            $connection->cancellation->cancel(new CancelledException('The client left before the response was complete'));

            return false;
        } catch (Throwable $error) {
            if ($error instanceof StreamClosedException) {
                throw $error;
            }
            $keepAlive = false;
            if ($error instanceof CancelledException && $connection->isClosed()) {
                return false; // the client left mid-stream and the body's source stopped: nothing failed
            }
            // The application's body stream failed half-way: the response is cut, so is the connection.
            $context->logger->error('Writing the response to {method} {target} failed: {error}', [
                'method' => $head->method, 'target' => $head->target, 'error' => $error, 'exception' => $error,
            ]);

            return false;
        }
    }

    /**
     * A 101 to an accepted WebSocket (WebSocketUpgrade): the head goes out, then the
     * application's closure gets the connection in this fiber until it returns; the connection
     * ends with it.
     *
     * @param Connection $connection
     * @param \Closure(WebSocket): void $session
     */
    private function upgrade($connection, ResponseInterface $response, \Closure $session, WebSocketOptions $options, ServerRequestInterface $request, ?PerMessageDeflate $deflate, ?string $protocol): bool
    {
        $head = "HTTP/1.1 101 Switching Protocols\r\n";
        foreach ($response->getHeaders() as $name => $values) {
            $head .= $name . ': ' . \implode(', ', $values) . "\r\n";
        }
        $connection->headBytes += \strlen($head) + 2;
        if (!$connection->writeAll($head . "\r\n")) {
            return false;
        }
        [$socket, $watcher, $buffered, $connections] = $connection->takeOver();
        $webSocket = new WebSocket($socket, $watcher, $buffered, $options, $request, $deflate, $protocol);
        $connections->onGracefulStop($connection, $webSocket->goAway(...));
        try {
            $session($webSocket);
            $webSocket->finish(null);
        } catch (Throwable $error) {
            $this->context->logger->error('A WebSocket\'s closure failed on {target}: {error}', ['target' => $request->getRequestTarget(), 'error' => $error, 'exception' => $error]);
            $webSocket->finish($error);
        }

        return false;
    }

    /**
     * Writes the server's own answer with $status (ResponseFramer::errorResponse()).
     *
     * @param Connection $connection
     * @return bool whether the connection is still whole
     */
    public function respondWithError($connection, int $status, bool $keepAlive, ?Throwable $shown, string $requestId): bool
    {
        $bytes = $this->context->framer->errorResponse($status, $keepAlive, $shown, $requestId);
        $connection->headBytes += (int) \strpos($bytes, "\r\n\r\n") + 4;

        return $connection->writeAll($bytes);
    }
}
