<?php

declare(strict_types=1);

namespace Bobbin\Http;

use Bobbin\Http\Message\HeaderRules;
use Bobbin\Http\Message\Response;
use Bobbin\Http\Message\StatusReason;
use Bobbin\Http\Message\StringStream;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\StreamInterface;

/**
 * Turns an application's response into wire form (RFC 9112 §6, RFC 9110 §6.4.1): the status
 * line, the application's headers with the server's framing in place of its own, and how the
 * body follows. Pure: it reads the response and returns bytes, it never writes.
 *
 * The rules: no body and no framing headers for 1xx and 204; 304 and HEAD repeat the length
 * the body would have and send none; otherwise Content-Length when the size is known, chunked
 * in HTTP/1.1 when it is not, and a body delimited by the close in HTTP/1.0. The application's
 * Content-Length, Transfer-Encoding, Connection and Keep-Alive are replaced (a `Connection:
 * close` of its own does close the connection). Date and Server are added unless it set them.
 *
 * Header fields of responses that are not Bobbin's own (validated when set) are checked here:
 * a name that is no token or a value with a control character is an InvalidResponseException,
 * never a byte on the wire; so is a status outside 100–599.
 *
 * @internal used by ResponseWriter
 */
final class ResponseFramer
{
    /**
     * Bodies up to this size go out in the same write as the head: strings already (Bobbin's
     * own StringStream), and seekable streams of a known size, read whole.
     */
    public const INLINE_BODY_BYTES = 65536;
    /** How many checked header lines and reason phrases are remembered (forgotten all at once past it). */
    private const REMEMBERED = 512;
    /** Longer fields (a cookie, a signed token: seldom the same twice) are checked every time. */
    private const REMEMBERED_BYTES = 256;

    /**
     * Single-valued header fields ("name\0value": neither part can hold a NUL once valid) and
     * reason phrases of other PSR-7 implementations found valid: an application sends the same
     * few over and over, so each is matched once, not on every response.
     *
     * @var array<string, true>
     */
    private array $validFields = [];
    /** @var array<string, true> */
    private array $validReasons = [];
    /**
     * The fields of the last Bobbin response framed with its fields as given, and what
     * fieldLines() made of them: the next response with equal fields (`===`, one comparison for
     * the same array literal) reuses them.
     *
     * @var array<string, string>|null
     */
    private $lastPlain = null;
    /** @var array{string, bool, bool, ?string, bool, bool} */
    private $lastPlainLines = ['', false, false, null, false, false];

    public function __construct(private readonly string $serverHeaderLine)
    {
    }

    /**
     * Called per response: the class types are the analyser's, not run-time checks (docs/ASYNC.md, Rules).
     *
     * @param ResponseInterface $response
     * @param bool $keepAlive whether the request and the server allow another request after this one
     * @param string $dateLine the `Date: …\r\n` line to add unless the response has its own
     * @param string $requestIdLine an `X-Request-Id: …\r\n` line to add unless the response has its own ('' for none)
     * @return FramedResponse
     * @throws InvalidResponseException
     */
    public function frame($response, string $method, string $protocolVersion, bool $keepAlive, string $dateLine, string $requestIdLine = '')
    {
        $status = $response->getStatusCode();
        if ($status < 100 || $status > 599) {
            // Another PSR-7 implementation may allow any integer: "HTTP/1.1 99" is no status line.
            throw new InvalidResponseException(\sprintf('The response status %d is outside 100–599', $status));
        }
        $reason = $response->getReasonPhrase();
        // Bobbin's own responses refuse control characters in reason, names and values when
        // they are set; any other PSR-7 implementation gets them checked here.
        $trusted = $response instanceof Response;
        if ($reason === '' || (!$trusted && !isset($this->validReasons[$reason]) && !self::remember($this->validReasons, $reason, HeaderRules::hasNoControlCharacters($reason)))) {
            $reason = StatusReason::for($status);
        }
        // Bobbin's own response with its fields as given: each value one string, no list of one made.
        $plain = $trusted ? $response->plainHeaders() : null;
        if ($plain !== null && $plain === $this->lastPlain) {
            // The same fields as the last plain response (an application's array literal): the
            // same lines and the same findings, without the loop (a trace of its own in the JIT).
            [$fields, $hasDate, $hasServer, $declaredLength, $closes, $ownsRequestId] = $this->lastPlainLines;
        } else {
            [$fields, $hasDate, $hasServer, $declaredLength, $closes, $ownsRequestId] = $found = $this->fieldLines($plain ?? $response->getHeaders(), $trusted);
            if ($plain !== null) {
                $this->lastPlain = $plain;
                $this->lastPlainLines = $found;
            }
        }
        if ($closes) {
            $keepAlive = false;
        }
        if ($ownsRequestId) {
            $requestIdLine = '';
        }
        // One interpolated string: one allocation (a chain of `.` reallocates at each step).
        $date = $hasDate ? '' : $dateLine;
        $server = $hasServer ? '' : $this->serverHeaderLine;
        $head = "HTTP/1.1 {$status} {$reason}\r\n{$fields}{$date}{$server}{$requestIdLine}";

        if ($status < 200 || $status === 204) {
            // No body and no framing headers at all (RFC 9110 §8.6).
            return new FramedResponse(self::endHead($head, $keepAlive, $protocolVersion), BodyFraming::None, $keepAlive);
        }
        if ($status === 304 || $method === 'HEAD') {
            // Headers as for GET, no body: repeat a declared or known length, never send one.
            if ($declaredLength !== null && \ctype_digit($declaredLength)) {
                $head .= 'Content-Length: ' . $declaredLength . "\r\n";
            } elseif ($status !== 304 && ($known = $response->getBody()->getSize()) !== null && $known > 0) {
                $head .= 'Content-Length: ' . $known . "\r\n";
            }

            return new FramedResponse(self::endHead($head, $keepAlive, $protocolVersion), BodyFraming::None, $keepAlive);
        }

        // Bobbin's own response with a small string body: the string itself, no stream made.
        $inline = $trusted ? $response->unstreamedBody() : null;
        if ($inline !== null && \strlen($inline) <= self::INLINE_BODY_BYTES) {
            $length = \strlen($inline);
            $end = !$keepAlive ? "\r\nConnection: close\r\n\r\n" : ($protocolVersion === '1.0' ? "\r\nConnection: keep-alive\r\n\r\n" : "\r\n\r\n");

            return new FramedResponse("{$head}Content-Length: {$length}{$end}", BodyFraming::ContentLength, $keepAlive, null, $length, $inline);
        }
        $body = $response->getBody();
        $inline = null;
        if ($body instanceof StringStream) {
            // Bobbin's own body: the string itself, no size/rewind/read round trip.
            $inline = $body->contents();
            $size = \strlen($inline);
            if ($size > self::INLINE_BODY_BYTES) {
                $inline = null;
            }
        } else {
            $size = $body->getSize();
            if ($size !== null && $size > 0 && $size <= self::INLINE_BODY_BYTES) {
                $inline = self::smallBody($body, $size);
            }
        }
        if ($size !== null) {
            $head .= 'Content-Length: ' . $size . "\r\n";
            $framing = BodyFraming::ContentLength;
        } elseif ($protocolVersion === '1.1') {
            $head .= "Transfer-Encoding: chunked\r\n";
            $framing = BodyFraming::Chunked;
        } else {
            $keepAlive = false;
            $framing = BodyFraming::UntilClose;
        }

        // endHead() written out: this is the path of nearly every response.
        $head .= !$keepAlive ? "Connection: close\r\n\r\n" : ($protocolVersion === '1.0' ? "Connection: keep-alive\r\n\r\n" : "\r\n");

        return new FramedResponse($head, $framing, $keepAlive, $body, $size ?? 0, $inline);
    }

    /**
     * The field lines of the application's headers (the head in one concatenation after them:
     * each `.=` on the growing head would be a reallocation and a copy), without the framing
     * fields the server writes itself, and what they say: whether Date and Server are given,
     * the declared length, whether they ask to close, whether X-Request-Id is the
     * application's own.
     *
     * @param array<array-key, string|list<mixed>|mixed> $headers
     * @return array{string, bool, bool, ?string, bool, bool}
     * @throws InvalidResponseException
     */
    private function fieldLines(array $headers, bool $trusted): array
    {
        $fields = '';
        $hasDate = $hasServer = $closes = $ownsRequestId = false;
        $declaredLength = null;
        foreach ($headers as $name => $values) {
            $name = (string) $name;
            if (!$trusted && \is_array($values)) { // another implementation's: getHeaders()'s lists
                $single = \count($values) === 1 && \is_string($values[0] ?? null) ? $name . "\0" . $values[0] : null;
                if ($single === null || !isset($this->validFields[$single])) {
                    self::assertValidField($name, $values);
                    if ($single !== null && \strlen($single) <= self::REMEMBERED_BYTES) {
                        self::remember($this->validFields, $single, true);
                    }
                }
            }
            switch (\strtolower($name)) {
                case 'content-length':
                    $declaredLength = \is_string($values) ? $values : $values[0] ?? null;
                    continue 2;
                case 'transfer-encoding':
                case 'keep-alive':
                    continue 2;
                case 'connection':
                    if (\stripos(\is_string($values) ? $values : \implode(',', $values), 'close') !== false) {
                        $closes = true;
                    }
                    continue 2;
                case 'date':
                    $hasDate = true;
                    break;
                case 'server':
                    $hasServer = true;
                    break;
                case 'x-request-id':
                    $ownsRequestId = true;
                    break;
            }
            if (\is_string($values)) {
                $fields .= "{$name}: {$values}\r\n";
            } elseif (isset($values[1])) {
                $fields .= $name . ': ' . \implode("\r\n" . $name . ': ', $values) . "\r\n";
            } elseif (isset($values[0])) {
                $fields .= "{$name}: {$values[0]}\r\n";
            }
        }

        return [$fields, $hasDate, $hasServer, \is_string($declaredLength) ? $declaredLength : null, $closes, $ownsRequestId];
    }

    /**
     * The complete bytes of the server's own plain-text error response (a rejected request, a
     * failed or timed-out handler). $requestId, when the request has one, goes out as
     * X-Request-Id even when the client sent it: the id is what a user's report and the log
     * line about the failure have in common. It is a token already (RequestIds::for()).
     */
    public function errorResponse(int $status, bool $keepAlive = false, ?\Throwable $shown = null, string $requestId = ''): string
    {
        $reason = StatusReason::for($status);
        if ($status === 504) {
            // The third outcome (FailedRequest): said so in a form a program can read.
            $body = '{"error":"No answer came in time from what this request waited on: it may or may not have taken effect. Check before you retry.","outcome":"unknown"}' . "\n";

            return 'HTTP/1.1 504 ' . $reason . "\r\n" . HttpDate::headerLine() . $this->serverHeaderLine
                . ($requestId === '' ? '' : 'X-Request-Id: ' . $requestId . "\r\n")
                . "Content-Type: application/json\r\nContent-Length: " . \strlen($body)
                . ($keepAlive ? "\r\n\r\n" : "\r\nConnection: close\r\n\r\n") . $body;
        }
        $body = $status . ' ' . $reason . "\n";
        for ($error = $shown; $error !== null; $error = $error->getPrevious()) {
            // --debug-errors: what the log says, for a developer's browser.
            $body .= \sprintf("\n%s%s: %s in %s:%d\n%s\n", $error === $shown ? '' : 'caused by ', $error::class, $error->getMessage(), $error->getFile(), $error->getLine(), $error->getTraceAsString());
        }

        return 'HTTP/1.1 ' . $status . ' ' . $reason . "\r\n" . HttpDate::headerLine() . $this->serverHeaderLine
            // A 503 is the server's state, not the request's fault: a client may try again soon.
            . ($status === 503 ? "Retry-After: 1\r\n" : '')
            . ($requestId === '' ? '' : 'X-Request-Id: ' . $requestId . "\r\n")
            . "Content-Type: text/plain; charset=utf-8\r\nContent-Length: " . \strlen($body)
            . ($keepAlive ? "\r\n\r\n" : "\r\nConnection: close\r\n\r\n") . $body;
    }

    /**
     * A small body of another PSR-7 implementation read whole, so that it goes out in the head's
     * write; null when it cannot be (not seekable, a read that fails or brings other than $size
     * bytes), and the body is then streamed (from its start again: ResponseBodyWriter rewinds).
     * A read() rather than (string) $body: __toString() usually goes through getContents(),
     * which in Nyholm's streams sets an error handler and leaves through a `finally`, and PHP
     * 8.2's tracing JIT gives up on traces there, so the rest of the response would run
     * interpreted (docs/ASYNC.md, Rules).
     */
    private static function smallBody(StreamInterface $body, int $size): ?string
    {
        if (!$body->isSeekable()) {
            return null;
        }
        try {
            $body->rewind();
            // One byte more than the size: a stream longer than it says is not cut here.
            $contents = $body->read($size + 1);
        } catch (\Throwable) {
            return null; // streaming it reports the failure
        }

        return \strlen($contents) === $size ? $contents : null;
    }

    private static function endHead(string $head, bool $keepAlive, string $protocolVersion): string
    {
        if (!$keepAlive) {
            return $head . "Connection: close\r\n\r\n";
        }

        return $protocolVersion === '1.0' ? $head . "Connection: keep-alive\r\n\r\n" : $head . "\r\n";
    }

    /** @param array<string, true> $memory */
    private static function remember(array &$memory, string $key, bool $valid): bool
    {
        if ($valid) {
            if (\count($memory) >= self::REMEMBERED) {
                $memory = [];
            }
            $memory[$key] = true;
        }

        return $valid;
    }

    /**
     * @param array<mixed> $values
     * @throws InvalidResponseException
     */
    private static function assertValidField(string $name, array $values): void
    {
        if (!HeaderRules::isToken($name)) {
            throw new InvalidResponseException(\sprintf('The response header name "%s" is not an RFC 9110 token', self::printable($name)));
        }
        foreach ($values as $value) {
            if (!\is_string($value) || !HeaderRules::hasNoControlCharacters($value)) {
                throw new InvalidResponseException(\sprintf(
                    'The value of response header "%s" contains a control character: "%s"',
                    $name,
                    self::printable(\is_scalar($value) ? (string) $value : \get_debug_type($value)),
                ));
            }
        }
    }

    /** The bytes of $text with control characters and non-ASCII escaped, for a log line. */
    private static function printable(string $text): string
    {
        return \addcslashes(\strlen($text) > 200 ? \substr($text, 0, 200) . '…' : $text, "\0..\37\177..\377\\\"");
    }
}
