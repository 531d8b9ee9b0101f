<?php

declare(strict_types=1);

namespace Bobbin\Http;

use Bobbin\Async\StreamClosedException;
use Bobbin\Async\StreamWatcher;
use Bobbin\Http\Message\Response;
use Bobbin\Http\Message\ServerRequest;
use Bobbin\Http\Message\StringStream;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\StreamInterface;
use Throwable;

/**
 * One accepted client connection, served by one fiber for its whole life: read a request,
 * hand it to the application, write the response, repeat while keep-alive holds. Timeouts are
 * not timers of its own: the server's sweeper compares $deadline with the clock and calls
 * expire(), so a request costs no timer at all.
 *
 * @internal created by Server
 */
final class Connection
{
    private const INLINE_BODY_BYTES = 65536;
    private const READ_BYTES = 65536;
    private const LINGER_SECONDS = 1.0;
    private const LINGER_MAX_BYTES = 1048576;

    /** A fresh connection counts as idle until its first byte (a graceful stop may close it). */
    public ConnectionPhase $phase = ConnectionPhase::Idle;
    public float $deadline;

    private readonly RequestParser $parser;
    private readonly StreamWatcher $watcher;
    private bool $closed = false;
    private int $requests = 0;
    /**
     * When the last bytes were read, as long as nothing has waited since (0.0 once stale). From
     * a read to the next wait only parsing happens, microseconds: the read's clock serves the
     * header, body and request deadlines and REQUEST_TIME instead of a clock call for each.
     */
    private float $clock = 0.0;

    /**
     * @param resource $socket non-blocking, read buffering off
     * @param array<string, string|int> $serverParams the connection's part of getServerParams()
     */
    public function __construct(
        private readonly Server $server,
        private $socket,
        private readonly array $serverParams,
        private readonly string $defaultAuthority,
    ) {
        $config = $server->config;
        $this->parser = RequestParser::fromConfig($config);
        $this->watcher = new StreamWatcher($socket);
        $this->deadline = \microtime(true) + $config->headerTimeout;
    }

    public function isClosed(): bool
    {
        return $this->closed;
    }

    /** The connection's fiber: serves requests until the client or the server ends it. */
    public function run(): void
    {
        try {
            $this->serve();
        } catch (StreamClosedException) {
            // Closed under us by the sweeper or a forced stop; nothing left to do.
        } catch (Throwable $error) {
            $this->server->logger->error('Connection failed: {error}', ['error' => $error, 'exception' => $error]);
        } finally {
            $this->close();
        }
    }

    /**
     * Called by the server's sweeper once $deadline has passed: answers what the phase calls
     * for (best effort, the socket is non-blocking) and closes.
     */
    public function expire(): void
    {
        if ($this->closed) {
            return;
        }
        $status = match ($this->phase) {
            ConnectionPhase::ReadingHead, ConnectionPhase::ReadingBody => 408,
            ConnectionPhase::Handling => 503,
            default => 0,
        };
        if ($status === 503) {
            $this->server->logger->warning('Request timed out after {seconds} s; answered 503', ['seconds' => $this->server->config->requestTimeout]);
        }
        if ($status !== 0) {
            @\fwrite($this->socket, self::errorResponse($status, $this->server->serverHeaderLine));
        }
        $this->close();
    }

    /** Closes the socket now; a fiber waiting on it wakes with StreamClosedException. */
    public function close(): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        $this->watcher->close();
        @\fclose($this->socket);
        $this->server->connectionClosed($this);
    }

    /** The complete bytes of a generic error response that ends the connection. */
    public static function errorResponse(int $status, string $serverHeaderLine, bool $keepAlive = false): string
    {
        $reason = StatusReason::for($status);
        $body = $status . ' ' . $reason . "\n";

        return 'HTTP/1.1 ' . $status . ' ' . $reason . "\r\n" . HttpDate::headerLine() . $serverHeaderLine
            . "Content-Type: text/plain; charset=utf-8\r\nContent-Length: " . \strlen($body)
            . ($keepAlive ? "\r\n\r\n" : "\r\nConnection: close\r\n\r\n") . $body;
    }

    private function serve(): void
    {
        $server = $this->server;
        $config = $server->config;
        $parser = $this->parser;
        $handler = $server->handler;
        while (!$server->isStopping() || $parser->buffer !== '' || $this->requests === 0 || $server->idleGraceUntil() > 0.0) {
            try {
                if ($parser->buffer === '') {
                    if ($this->requests > 0) {
                        $this->phase = ConnectionPhase::Idle;
                        $this->deadline = \microtime(true) + $config->idleTimeout;
                        if ($server->isStopping()) {
                            // A stop with an idle grace: wait briefly for a request already on its way.
                            $this->deadline = \min($this->deadline, $server->idleGraceUntil());
                        }
                    }
                } elseif ($this->phase !== ConnectionPhase::ReadingHead) {
                    $this->phase = ConnectionPhase::ReadingHead;
                    $this->clock = \microtime(true);
                    $this->deadline = $this->clock + $config->headerTimeout;
                }
                // After a response the buffer is usually empty: wait for bytes before parsing nothing.
                if ($parser->buffer === '' && !$this->fill()) {
                    return;
                }
                while (($head = $parser->nextHead()) === null) {
                    if (!$this->fill()) {
                        return;
                    }
                }
                $body = '';
                if ($head->chunked || $head->contentLength > 0) { // RequestHead::hasBody(), without the call
                    $this->phase = ConnectionPhase::ReadingBody;
                    $this->deadline = ($this->clock > 0.0 ? $this->clock : \microtime(true)) + $config->bodyTimeout;
                    if ($head->expectsContinue && $parser->buffer === '' && !$this->writeAll("HTTP/1.1 100 Continue\r\n\r\n")) {
                        return;
                    }
                    while (($body = $parser->readBody($head)) === null) {
                        if (!$this->fill()) {
                            return;
                        }
                    }
                }
            } catch (ProtocolError $error) {
                if ($config->accessLog) {
                    $server->logger->info('{remote} rejected request: {status} {reason}', [
                        'remote' => $this->serverParams['REMOTE_ADDR'], 'status' => $error->status, 'reason' => $error->getMessage(),
                    ]);
                }
                if ($this->writeAll(self::errorResponse($error->status, $server->serverHeaderLine))) {
                    $this->lingerAndClose();
                }

                return;
            }

            $this->requests++;
            if (++$server->requestsServed >= $server->requestLimit) {
                $server->requestLimitReached();
            }
            $now = $this->clock > 0.0 ? $this->clock : \microtime(true);
            $this->clock = 0.0; // the handler may wait
            $this->phase = ConnectionPhase::Handling;
            $this->deadline = $now + $config->requestTimeout;
            try {
                $request = $this->buildRequest($head, $body, $now);
            } catch (\InvalidArgumentException) {
                if ($this->writeAll(self::errorResponse(400, $server->serverHeaderLine))) {
                    $this->lingerAndClose();
                }

                return;
            }
            try {
                $response = $handler->handle($request);
            } catch (Throwable $error) {
                $server->logger->error('The application failed on {method} {target}: {error}', [
                    'method' => $head->method, 'target' => $head->target, 'error' => $error, 'exception' => $error,
                ]);
                $response = null;
            }
            if ($this->closed) {
                // The request timed out and was answered with 503; this late result is dropped.
                return;
            }
            $keepAlive = $head->keepAlive && !$server->isStopping()
                && ($config->maxRequestsPerConnection === 0 || $this->requests < $config->maxRequestsPerConnection);
            if ($response === null) {
                // The framing is intact, so the connection can go on after the 500.
                $written = $this->writeAll(self::errorResponse(500, $server->serverHeaderLine, $keepAlive));
                $status = 500;
            } else {
                $this->phase = ConnectionPhase::Writing;
                $this->deadline = \microtime(true) + $config->writeTimeout;
                try {
                    $keepAlive = $this->respond($response, $head, $keepAlive);
                    $written = true;
                } catch (WriteFailed) {
                    $written = false;
                } catch (Throwable $error) {
                    if ($error instanceof StreamClosedException) {
                        throw $error;
                    }
                    $server->logger->error('Writing the response to {method} {target} failed: {error}', [
                        'method' => $head->method, 'target' => $head->target, 'error' => $error, 'exception' => $error,
                    ]);
                    $written = false;
                }
                $status = $response->getStatusCode();
            }
            if ($config->accessLog) {
                $server->logger->info('{remote} "{method} {target} HTTP/{version}" {status} {ms}ms', [
                    'remote' => $this->serverParams['REMOTE_ADDR'], 'method' => $head->method, 'target' => $head->target,
                    'version' => $head->protocolVersion, 'status' => $status,
                    'ms' => \number_format((\microtime(true) - $now) * 1000, 1, '.', ''),
                ]);
            }
            if (!$written) {
                return;
            }
            if (!$keepAlive) {
                $this->lingerAndClose();

                return;
            }
        }
    }

    /** Waits for bytes and appends them to the parser's buffer; false once the client is gone. */
    private function fill(): bool
    {
        while (true) {
            $this->watcher->awaitReadable();
            $data = @\fread($this->socket, self::READ_BYTES);
            if ($data !== false && $data !== '') {
                break;
            }
            if ($data === false || \feof($this->socket)) {
                return false;
            }
        }
        $this->clock = \microtime(true);
        if ($this->phase === ConnectionPhase::Idle) {
            $this->phase = ConnectionPhase::ReadingHead;
            $this->deadline = $this->clock + $this->server->config->headerTimeout;
        }
        $this->parser->buffer .= $data;

        return true;
    }

    /**
     * The application's view of the request. Nothing is parsed or copied here: the request keeps
     * the parser's parts and builds URI, query, cookies and body stream when first asked.
     *
     * @throws \InvalidArgumentException for a target or Host that is no valid URI
     */
    private function buildRequest(RequestHead $head, string $body, float $now): ServerRequest
    {
        $params = $this->serverParams;
        $params['REQUEST_METHOD'] = $head->method;
        $params['REQUEST_URI'] = $head->target;
        $params['SERVER_PROTOCOL'] = 'HTTP/' . $head->protocolVersion;
        $params['REQUEST_TIME'] = (int) $now;
        $params['REQUEST_TIME_FLOAT'] = $now;

        return ServerRequest::fromParsed(
            method: $head->method,
            target: $head->target,
            protocolVersion: $head->protocolVersion,
            headers: $head->headers,
            host: $head->host,
            defaultAuthority: $this->defaultAuthority,
            body: $body,
            serverParams: $params,
            cookie: $head->cookie,
        );
    }

    /**
     * Writes $response and returns whether the connection may serve another request.
     *
     * @throws WriteFailed when the client is gone or stopped reading
     */
    private function respond(ResponseInterface $response, RequestHead $head, bool $keepAlive): bool
    {
        $status = $response->getStatusCode();
        $reason = $response->getReasonPhrase();
        // Bobbin's own responses refuse control characters in reason, names and values when
        // they are set; any other PSR-7 implementation gets its line breaks checked here.
        $trusted = $response instanceof Response;
        if ($reason === '' || (!$trusted && \strpbrk($reason, "\r\n") !== false)) {
            $reason = StatusReason::for($status);
        }
        $out = 'HTTP/1.1 ' . $status . ' ' . $reason . "\r\n";
        $hasDate = $hasServer = false;
        $declaredLength = null;
        foreach ($response->getHeaders() as $name => $values) {
            $name = (string) $name;
            switch (\strtolower($name)) {
                case 'content-length':
                    $declaredLength = $values[0] ?? null;
                    continue 2;
                case 'transfer-encoding':
                case 'keep-alive':
                    continue 2;
                case 'connection':
                    if (\stripos(\implode(',', $values), 'close') !== false) {
                        $keepAlive = false;
                    }
                    continue 2;
                case 'date':
                    $hasDate = true;
                    break;
                case 'server':
                    $hasServer = true;
                    break;
            }
            if ($trusted) {
                $out .= $name . ': ' . (isset($values[1]) ? \implode("\r\n" . $name . ': ', $values) : $values[0]) . "\r\n";
                continue;
            }
            foreach ($values as $value) {
                // nyholm's messages refuse line breaks in values too; other PSR-7 implementations may not.
                if (\strpbrk($value, "\r\n") === false) {
                    $out .= $name . ': ' . $value . "\r\n";
                }
            }
        }
        if (!$hasDate) {
            $out .= HttpDate::headerLine();
        }
        if (!$hasServer) {
            $out .= $this->server->serverHeaderLine;
        }

        $stream = $contents = null;
        $size = 0;
        $chunked = false;
        if ($status < 200 || $status === 204) {
            // No body and no framing headers at all (RFC 9110 §8.6).
        } elseif ($status === 304 || $head->method === 'HEAD') {
            // Headers as for GET, no body: repeat a declared or known length, never send one.
            if ($declaredLength !== null && \ctype_digit($declaredLength)) {
                $out .= 'Content-Length: ' . $declaredLength . "\r\n";
            } elseif ($status !== 304 && ($known = $response->getBody()->getSize()) !== null && $known > 0) {
                $out .= 'Content-Length: ' . $known . "\r\n";
            }
        } else {
            $stream = $response->getBody();
            if ($stream instanceof StringStream) {
                // Bobbin's own body: the string itself, no size/rewind/read round trip.
                $contents = $stream->contents();
                $size = \strlen($contents);
            } else {
                $size = $stream->getSize();
            }
            if ($size !== null) {
                $out .= 'Content-Length: ' . $size . "\r\n";
            } elseif ($head->protocolVersion === '1.1') {
                $chunked = true;
                $out .= "Transfer-Encoding: chunked\r\n";
            } else {
                $keepAlive = false; // HTTP/1.0 and no length: the body ends when the connection does.
            }
        }
        if (!$keepAlive) {
            $out .= "Connection: close\r\n\r\n";
        } elseif ($head->protocolVersion === '1.0') {
            $out .= "Connection: keep-alive\r\n\r\n";
        } else {
            $out .= "\r\n";
        }

        if ($stream === null || $size === 0) {
            $this->writeOrFail($out);

            return $keepAlive;
        }
        if ($contents !== null && $size <= self::INLINE_BODY_BYTES) {
            $this->writeOrFail($out . $contents);

            return $keepAlive;
        }
        if ($size !== null && $size <= self::INLINE_BODY_BYTES && $stream->isSeekable()) {
            $contents = (string) $stream;
            if (\strlen($contents) === $size) {
                $this->writeOrFail($out . $contents);

                return $keepAlive;
            }
            $stream->rewind();
        }

        return $this->streamBody($out, $stream, $size, $chunked) && $keepAlive;
    }

    /**
     * Copies a large or unknown-size body a piece at a time, each piece written before the next
     * is read, so a slow client never makes the server hold the whole body.
     *
     * @return bool false when the body did not match its declared length (the connection must close)
     * @throws WriteFailed
     */
    private function streamBody(string $pending, StreamInterface $stream, ?int $size, bool $chunked): bool
    {
        if ($stream->isSeekable()) {
            $stream->rewind();
        }
        $remaining = $size ?? \PHP_INT_MAX;
        while ($remaining > 0 && !$stream->eof()) {
            $piece = $stream->read(\min(self::READ_BYTES, $remaining));
            if ($piece === '') {
                break; // A stream with nothing to give is done; looping on it would spin.
            }
            $remaining -= \strlen($piece);
            $this->writeOrFail($pending . ($chunked ? \dechex(\strlen($piece)) . "\r\n" . $piece . "\r\n" : $piece));
            $pending = '';
        }
        if ($chunked) {
            $this->writeOrFail($pending . "0\r\n\r\n");

            return true;
        }
        if ($pending !== '') {
            $this->writeOrFail($pending);
        }
        if ($size !== null && $remaining > 0) {
            $this->server->logger->error('A response body was shorter than its size; closing the connection');

            return false;
        }

        return true;
    }

    /** @throws WriteFailed */
    private function writeOrFail(string $data): void
    {
        if (!$this->writeAll($data)) {
            throw new WriteFailed();
        }
    }

    /** Writes all of $data, waiting for the client to read when its window is full. */
    private function writeAll(string $data): bool
    {
        $written = @\fwrite($this->socket, $data);
        if ($written === \strlen($data)) {
            return true;
        }
        while (true) {
            if ($written === false || $this->isClosed()) {
                return false;
            }
            if ($written > 0) {
                $data = \substr($data, $written);
                if ($data === '') {
                    return true;
                }
                if ($this->phase === ConnectionPhase::Writing) {
                    $this->deadline = \microtime(true) + $this->server->config->writeTimeout;
                }
            }
            $this->clock = 0.0; // about to wait: the last read's time goes stale
            $this->watcher->awaitWritable();
            $written = @\fwrite($this->socket, $data);
        }
    }

    /**
     * Closes after the last response without destroying it: half-close, then read and drop
     * what the client still sends for a moment, because closing with unread bytes makes the
     * kernel send a reset that can discard the response before the client reads it.
     */
    private function lingerAndClose(): void
    {
        if ($this->closed) {
            return;
        }
        @\stream_socket_shutdown($this->socket, \STREAM_SHUT_WR);
        $this->phase = ConnectionPhase::Closing;
        $this->deadline = \microtime(true) + self::LINGER_SECONDS;
        $discarded = 0;
        while (!$this->isClosed() && $discarded < self::LINGER_MAX_BYTES) {
            $this->watcher->awaitReadable();
            $data = @\fread($this->socket, self::READ_BYTES);
            if ($data === false || ($data === '' && \feof($this->socket))) {
                break;
            }
            $discarded += \strlen($data);
        }
        $this->close();
    }
}
