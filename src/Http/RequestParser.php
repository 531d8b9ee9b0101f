<?php

declare(strict_types=1);

namespace Bobbin\Http;

/**
 * Incremental HTTP/1.1 request parser (RFC 9112) for one connection. Bytes are appended to
 * $buffer as they arrive (one at a time or many requests at once); nextHead() and readBody()
 * return null until enough has arrived and throw ProtocolException for anything ambiguous, so a
 * request can never be framed two ways (the root of request smuggling).
 *
 * Over 400 lines on purpose: the whole HTTP/1.1 request grammar (request line, header fields,
 * framing, chunked bodies) stays one pure class, tested byte by byte as one unit, with its hot
 * path inlined rather than split into calls (docs/HTTP.md, Hot path).
 *
 * @internal used by Connection
 */
final class RequestParser
{
    // Regular expressions rather than strspn()/strcspn() with character lists: PHP runs those as
    // a loop over the list for every byte (~0.2–0.3 µs for a typical name or value), while a
    // JIT-compiled pattern checks a whole field in ~0.03 µs. This runs for every header line.
    /** The leading tchars of a line (RFC 9110 §5.6.2). */
    private const TOKEN = '/^[!#$%&\'*+\-.^_`|~0-9A-Za-z]+/';
    /**
     * A request line with a version this server speaks (RFC 9112 §3), matched at the start of
     * the head: it must end where the head or its first CRLF does.
     */
    private const REQUEST_LINE = '#^([!\#$%&\'*+.^_`|~0-9A-Za-z-]+) ([\x21-\x7e]+) HTTP/(1\.[01])(?:\r\n|$)#D';
    /**
     * One field line (RFC 9112 §5): name, colon, leading OWS, then the value with any trailing
     * OWS (trimmed by the caller); no control character but HTAB anywhere. Anchored with \G so
     * preg_match_all() stops at the first line that is not one.
     */
    private const FIELD_LINE = '/\G([!#$%&\'*+\-.^_`|~0-9A-Za-z]++):[ \t]*+([^\x00-\x08\x0a-\x1f\x7f]*+)(?:\r\n|$)/D';

    /** Heads up to this size are remembered for a repeat (nextHead()): most are a few hundred bytes. */
    private const REMEMBERED_HEAD_BYTES = 1024;

    // The properties written per request are untyped, typed by @var: PHP 8.2's tracing JIT calls
    // a checking helper for each write to a typed property (docs/ASYNC.md, Rules).
    /** @var string received bytes not yet consumed by a head or body */
    public $buffer = '';

    /** Decodes chunked bodies, one at a time; made for the first one (most connections never send one). */
    private ?ChunkedBodyDecoder $chunked = null;
    /** @var int how much of an incomplete head was already checked, so slow senders cost linear time */
    private $headScanned = 0;
    /** @var string the last Host value that passed the check (most connections send one and the same) */
    private $validHost = '';
    /**
     * @var string the bytes of the last head parsed (with its CRLFCRLF) when they were the whole
     * buffer and are short: a keep-alive client often sends the very same head again (a poll, a
     * health check, a load generator), whose parse is then $lastHead again
     */
    private $lastRaw = '';
    /** @var RequestHead|null what $lastRaw parsed to */
    private $lastHead = null;

    public function __construct(
        private readonly int $maxRequestLineBytes = 8192,
        private readonly int $maxHeaderBytes = 16384,
        private readonly int $maxHeaderCount = 100,
        private readonly int $maxBodyBytes = 10485760,
        private readonly ?SharedRequestHeads $shared = null,
    ) {
    }

    /** @param ?SharedRequestHeads $shared the heads the other parsers of the server with $config parsed (null: none shared) */
    public static function fromConfig(ServerConfig $config, ?SharedRequestHeads $shared = null): self
    {
        return new self($config->maxRequestLineBytes, $config->maxHeaderBytes, $config->maxHeaderCount, $config->maxBodyBytes, $shared);
    }

    /**
     * The next complete request head from the buffer, or null if more bytes are needed. Its
     * return type is the analyser's (@return): a declared class type is a run-time check per
     * request (docs/ASYNC.md, Rules).
     *
     * @return RequestHead|null
     * @throws ProtocolException
     */
    public function nextHead()
    {
        $buffer = $this->buffer;
        // RFC 9112 §2.2: ignore empty lines before a request line (some clients send them).
        if ($buffer !== '' && $buffer[0] === "\r") {
            while (\str_starts_with($buffer, "\r\n")) {
                $buffer = (string) \substr($buffer, 2);
            }
            $this->buffer = $buffer;
            $this->headScanned = 0;
            if ($buffer === '' || $buffer === "\r") {
                return null;
            }
        }
        if ($buffer === $this->lastRaw) {
            // The same bytes as the last head: the same request line, fields and framing. Parsing
            // is a pure function of the bytes (the Host check aside, which they passed), and a
            // RequestHead is immutable, so it serves again.
            $this->buffer = '';
            $this->headScanned = 0;

            return $this->lastHead;
        }
        $end = \strpos($buffer, "\r\n\r\n", $this->headScanned > 3 ? $this->headScanned - 3 : 0);
        if ($end === false) {
            $this->checkIncompleteHead($buffer);
            $this->headScanned = \strlen($buffer);

            return null;
        }
        $this->headScanned = 0;
        if (\strlen($buffer) !== $end + 4) {
            $this->buffer = \substr($buffer, $end + 4);

            return $this->parseHead(\substr($buffer, 0, $end), $end + 4);
        }
        // Usually the head is all there is (a GET), and nothing is left to copy.
        $this->buffer = '';
        $remembered = $end < self::REMEMBERED_HEAD_BYTES;
        $shared = $this->shared;
        if ($remembered && $shared !== null && isset($shared->byBytes[$buffer])) {
            // Parsed on another connection already: the same RequestHead and bytes, shared.
            [$this->lastRaw, $this->lastHead] = $shared->byBytes[$buffer];

            return $this->lastHead;
        }
        $head = $this->parseHead(\substr($buffer, 0, $end), $end + 4);
        if ($remembered && !$head->chunked) { // a chunked head resets the decoder: parsed each time
            $this->lastRaw = $buffer;
            $this->lastHead = $head;
            $shared?->keep($buffer, $head);
        }

        return $head;
    }

    /** Forgets the last head (a connection that goes idle for long keeps no copy of it). */
    public function forgetLastHead(): void
    {
        $this->lastRaw = '';
        $this->lastHead = null;
    }

    /**
     * The whole body of $head once it has arrived, or null if more bytes are needed. Chunked
     * bodies are decoded as they arrive (extensions and trailers are accepted and dropped).
     *
     * @throws ProtocolException
     */
    public function readBody(RequestHead $head): ?string
    {
        if (!$head->chunked) {
            $length = $head->contentLength;
            $available = \strlen($this->buffer);
            if ($available < $length) {
                return null;
            }
            if ($available === $length) {
                // The usual case, no pipelined request behind the body: hand over the string, no copies.
                $body = $this->buffer;
                $this->buffer = '';

                return $body;
            }
            $body = \substr($this->buffer, 0, $length);
            $this->buffer = \substr($this->buffer, $length);

            return $body;
        }

        return ($this->chunked ??= new ChunkedBodyDecoder($this->maxBodyBytes, $this->maxHeaderBytes, $this->maxHeaderCount))->decode($this->buffer);
    }

    /** @throws ProtocolException */
    private function checkIncompleteHead(string $buffer): void
    {
        $lineEnd = \strpos($buffer, "\n");
        if ($lineEnd === false) {
            if (\strlen($buffer) > $this->maxRequestLineBytes) {
                throw new ProtocolException(414, 'Request line too long');
            }

            return;
        }
        if ($lineEnd === 0 || $buffer[$lineEnd - 1] !== "\r") {
            throw new ProtocolException(400, 'Bare LF in the request line');
        }
        if ($lineEnd - 1 > $this->maxRequestLineBytes) {
            throw new ProtocolException(414, 'Request line too long');
        }
        // Fail fast on a bare LF instead of waiting for a CRLFCRLF that may never come.
        if (\preg_match('/(?<!\r)\n/', $buffer, $match, 0, \max(0, $this->headScanned - 1)) === 1) {
            throw new ProtocolException(400, 'Bare LF in the header section');
        }
        if (\strlen($buffer) > $this->maxHeaderBytes) {
            throw new ProtocolException(431, 'Request header section too large');
        }
    }

    /**
     * A complete head: the request line (parseRequestLine()), the field lines (here), then the
     * framing they decide (frame()). The field loop stays in this method and hands frame() its
     * findings as arguments: as a method of its own returning them (in an array or through
     * properties) it cost 6 % more instructions per request under the JIT (callgrind).
     *
     * @throws ProtocolException
     */
    private function parseHead(string $head, int $headBytes): RequestHead
    {
        $lineEnd = \strpos($head, "\r\n");
        [$method, $target, $version] = $this->parseRequestLine($head, $lineEnd, $headBytes);
        $headers = [];
        $hostCount = 0;
        $host = $cookie = $expect = $contentType = $requestId = null;
        $contentLengths = $transferEncodings = $connection = [];
        if ($lineEnd !== false) {
            $offset = $lineEnd + 2;
            $lines = \substr_count($head, "\r\n", $offset) + 1;
            if ($lines > $this->maxHeaderCount) {
                throw new ProtocolException(431, 'Too many header fields');
            }
            // One pass of one compiled pattern validates and splits every field line: a name of
            // tchars, a colon, a value without control characters. \G chains the matches, so they
            // cover the whole section only if every line is well-formed — which the count of
            // matches against the count of lines tells.
            if (\preg_match_all(self::FIELD_LINE, $head, $m, 0, $offset) !== $lines) {
                self::fieldError($head, $offset);
            }
            $values = $m[2];
            foreach ($m[1] as $i => $name) {
                $value = $values[$i];
                // The pattern took the value up to the line end; trailing OWS is not part of it.
                if ($value !== '' && ($value[-1] === ' ' || $value[-1] === "\t")) {
                    $value = \rtrim($value, " \t");
                }
                $headers[$name][] = $value;
                // The fields that decide framing, and the two the request keeps apart.
                switch (\strtolower($name)) {
                    case 'host':
                        $hostCount++;
                        $host = $value;
                        break;
                    case 'content-length':
                        $contentLengths[] = $value;
                        break;
                    case 'transfer-encoding':
                        $transferEncodings[] = $value;
                        break;
                    case 'connection':
                        $connection[] = $value;
                        break;
                    case 'expect':
                        $expect = $expect === null ? $value : $expect . ',' . $value;
                        break;
                    case 'cookie':
                        $cookie = $cookie === null ? $value : $cookie . '; ' . $value;
                        break;
                    case 'content-type':
                        $contentType = $value;
                        break;
                    case 'x-request-id':
                        $requestId = $value;
                        break;
                }
            }
        }

        return $this->frame($method, $target, $version, $headers, $host, $hostCount, $contentLengths, $transferEncodings, $connection, $expect, $cookie, $contentType, $requestId);
    }

    /**
     * Method, target and version, in one match on the head itself (no copy of the line); anything
     * else goes to requestLineError() to find out what is wrong with it.
     *
     * @param int|false $lineEnd where the request line's CRLF is, false when it is the whole head
     * @return array{string, string, string}
     * @throws ProtocolException
     */
    private function parseRequestLine(string $head, int|false $lineEnd, int $headBytes): array
    {
        if (($lineEnd === false ? \strlen($head) : $lineEnd) > $this->maxRequestLineBytes) {
            throw new ProtocolException(414, 'Request line too long');
        }
        if ($headBytes > $this->maxHeaderBytes) {
            throw new ProtocolException(431, 'Request header section too large');
        }
        if (\preg_match(self::REQUEST_LINE, $head, $m) !== 1) {
            throw self::requestLineError($lineEnd === false ? $head : \substr($head, 0, $lineEnd));
        }
        [, $method, $target, $version] = $m;
        if ($target[0] !== '/') {
            if ($target === '*') {
                if ($method !== 'OPTIONS') {
                    throw new ProtocolException(400, 'Asterisk-form target is only for OPTIONS');
                }
            } elseif ($method === 'CONNECT') {
                throw new ProtocolException(501, 'CONNECT is not supported');
            } elseif (\preg_match('#^[A-Za-z][A-Za-z0-9+.-]*://#', $target) !== 1) {
                throw new ProtocolException(400, 'Malformed request target');
            }
        }

        return [$method, $target, $version];
    }

    /**
     * What the fields decide (RFC 9112 §6, §9): Host, the body's framing, keep-alive and
     * 100-continue.
     *
     * @param array<string, list<string>> $headers
     * @param list<string> $contentLengths
     * @param list<string> $transferEncodings
     * @param list<string> $connection
     * @throws ProtocolException
     */
    private function frame(
        string $method,
        string $target,
        string $version,
        array $headers,
        ?string $host,
        int $hostCount,
        array $contentLengths,
        array $transferEncodings,
        array $connection,
        ?string $expect,
        ?string $cookie,
        ?string $contentType,
        ?string $requestId,
    ): RequestHead {

        if ($hostCount > 1) {
            throw new ProtocolException(400, 'More than one Host header');
        }
        if ($hostCount === 0 && $version === '1.1') {
            throw new ProtocolException(400, 'Missing Host header');
        }
        // A keep-alive client sends the same Host every time: the last valid one needs no new match.
        if ($host !== null && $host !== $this->validHost) {
            if (\preg_match('/^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~%!$&\'()*+,;=-]*)(?::[0-9]*)?$/D', $host) !== 1) {
                throw new ProtocolException(400, 'Malformed Host header');
            }
            $this->validHost = $host;
        }

        $chunked = false;
        $contentLength = 0;
        if ($transferEncodings !== []) {
            if ($contentLengths !== []) {
                throw new ProtocolException(400, 'Both Content-Length and Transfer-Encoding');
            }
            if ($version === '1.0') {
                throw new ProtocolException(400, 'Transfer-Encoding in an HTTP/1.0 request');
            }
            $codings = \array_map(
                static fn (string $c): string => \strtolower(\trim($c, " \t")),
                \explode(',', \implode(',', $transferEncodings)),
            );
            if ($codings !== ['chunked']) {
                if (\in_array('chunked', $codings, true) || \in_array('', $codings, true)) {
                    throw new ProtocolException(400, 'Transfer-Encoding must be a single final chunked');
                }
                throw new ProtocolException(501, 'Unsupported transfer coding');
            }
            $chunked = true;
            $this->chunked?->reset(); // readBody() makes the first one
        } elseif ($contentLengths !== []) {
            // The usual single plain number is read here; lists, repeats and huge values are
            // parseContentLength()'s.
            $length = $contentLengths[0];
            if (!isset($contentLengths[1]) && \strlen($length) <= 18 && \ctype_digit($length)) {
                $contentLength = (int) $length;
                if ($contentLength > $this->maxBodyBytes) {
                    throw new ProtocolException(413, 'Request body too large');
                }
            } else {
                $contentLength = $this->parseContentLength($contentLengths);
            }
        }

        $keepAlive = $version === '1.1';
        foreach ($connection as $value) {
            $value = \strtolower($value);
            // The usual single option is settled without splitting the list.
            if ($value === 'keep-alive') {
                $keepAlive = true;
                continue;
            }
            if ($value === 'close') {
                $keepAlive = false;
                break;
            }
            foreach (\explode(',', $value) as $option) {
                $option = \trim($option, " \t");
                if ($option === 'close') {
                    $keepAlive = false;
                    break 2;
                }
                if ($option === 'keep-alive') {
                    $keepAlive = true;
                }
            }
        }

        $expectsContinue = false;
        if ($expect !== null) {
            if (\strtolower(\trim($expect, " \t")) !== '100-continue') {
                throw new ProtocolException(417, 'Unsupported expectation');
            }
            $expectsContinue = $version === '1.1';
        }

        return new RequestHead($method, $target, $version, $headers, $host, $contentLength, $chunked, $keepAlive, $expectsContinue, $cookie, $contentType, $requestId);
    }

    /** Why a request line did not match REQUEST_LINE: an unsupported version (505) or a malformed line. */
    private static function requestLineError(string $requestLine): ProtocolException
    {
        if (\preg_match('#^[!\#$%&\'*+.^_`|~0-9A-Za-z-]+ [\x21-\x7e]+ HTTP/[0-9]+\.[0-9]+$#D', $requestLine) === 1) {
            return new ProtocolException(505, 'HTTP version not supported');
        }

        return new ProtocolException(400, 'Malformed request line');
    }

    /**
     * Finds the field line that FIELD_LINE rejected and throws what parseField() says about it.
     *
     * @throws ProtocolException
     */
    private static function fieldError(string $head, int $offset): never
    {
        foreach (\explode("\r\n", \substr($head, $offset)) as $line) {
            self::parseField($line);
        }
        throw new ProtocolException(400, 'Malformed header field'); // not reached: some line failed above
    }

    /**
     * One field line (name, value), or what is wrong with it.
     *
     * @internal also used by ChunkedBodyDecoder for trailer fields
     * @return array{string, string}
     * @throws ProtocolException
     */
    public static function parseField(string $line): array
    {
        $colon = \strpos($line, ':');
        // Also rejects obs-fold (a line starting with whitespace) and whitespace before the colon.
        if ($colon === false || $colon === 0 || \preg_match(self::TOKEN, $line, $m, 0) !== 1 || \strlen($m[0]) !== $colon) {
            throw new ProtocolException(400, 'Malformed header field');
        }
        $value = \trim(\substr($line, $colon + 1), " \t");
        if (\preg_match('/[\x00-\x08\x0a-\x1f\x7f]/', $value) === 1) {
            throw new ProtocolException(400, 'Control character in a header value');
        }

        return [\substr($line, 0, $colon), $value];
    }

    /**
     * @param list<string> $values
     * @throws ProtocolException
     */
    private function parseContentLength(array $values): int
    {
        $length = null;
        foreach (\explode(',', \implode(',', $values)) as $value) {
            $value = \trim($value, " \t");
            if ($value === '' || !\ctype_digit($value)) {
                throw new ProtocolException(400, 'Malformed Content-Length');
            }
            $value = \ltrim($value, '0');
            if (\strlen($value) > 18) {
                throw new ProtocolException(413, 'Request body too large');
            }
            $value = (int) $value;
            if ($length !== null && $length !== $value) {
                throw new ProtocolException(400, 'Conflicting Content-Length values');
            }
            $length = $value;
        }
        if ($length > $this->maxBodyBytes) {
            throw new ProtocolException(413, 'Request body too large');
        }

        return (int) $length;
    }
}
