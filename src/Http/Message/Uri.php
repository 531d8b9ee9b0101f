<?php

declare(strict_types=1);

namespace Bobbin\Http\Message;

use Psr\Http\Message\UriInterface;

/**
 * An immutable PSR-7 URI (RFC 3986).
 *
 * Two ways in. `new Uri($string)` reads any URI reference, as PSR-17's createUri() does.
 * fromRequest() is the server's: it keeps the Host (or the server's own address) and the
 * origin-form target as received and splits nothing until a part is asked for. The router
 * reads the path of every request and hardly anyone the rest, so a request costs this object
 * and, on the first getPath(), one split of the target and one check that the path needs no
 * percent-encoding — instead of a full parse and three encoding passes.
 *
 * Components are held percent-encoded. Characters a component may not hold as they are get
 * encoded on the way in (constructor, with*(), the first read of a request's part); "%"
 * followed by two hex digits is an escape already and is never encoded twice. Hosts are lower-
 * case. A port is kept as given; getPort() and getAuthority() leave it out while it is the
 * default of the scheme, so changing the scheme changes what they show, as PSR-7 asks.
 *
 * Over 400 lines: PSR-7's UriInterface is large (a getter and a with-method per component) and
 * RFC 3986's normalisation and percent-encoding rules come with it.
 */
final class Uri implements UriInterface
{
    private const DEFAULT_PORTS = ['http' => 80, 'https' => 443, 'ws' => 80, 'wss' => 443];

    // Runs of characters a component may not hold unencoded, or a "%" that starts no escape.
    /** Path (RFC 3986 §3.3): pchar and "/". */
    private const PATH_ENCODE = '/[^A-Za-z0-9\-._~!$&\'()*+,;=:@\/%]++|%(?![0-9A-Fa-f]{2})/';
    /** Query and fragment (§3.4, §3.5): pchar, "/" and "?". */
    private const QUERY_ENCODE = '/[^A-Za-z0-9\-._~!$&\'()*+,;=:@\/?%]++|%(?![0-9A-Fa-f]{2})/';
    /** User name (§3.2.1): unreserved and sub-delims; its ":" would start the password. */
    private const USER_ENCODE = '/[^A-Za-z0-9\-._~!$&\'()*+,;=%]++|%(?![0-9A-Fa-f]{2})/';
    /** Password, and the user information read from a URI string: ":" allowed. */
    private const USER_INFO_ENCODE = '/[^A-Za-z0-9\-._~!$&\'()*+,;=:%]++|%(?![0-9A-Fa-f]{2})/';
    /** reg-name (§3.2.2); bytes of non-ASCII (UTF-8) names are encoded too, as the RFC says. */
    private const HOST_ENCODE = self::USER_ENCODE;
    /** What no host can hold, encoded or not: delimiters of the URI, whitespace, controls. */
    private const HOST_INVALID = '/[\x00-\x20\x7f\/?#@\[\]:]/';
    /** An IP literal (§3.2.2): IPv6 (its shape; the digits are not counted) or IPvFuture. */
    private const IP_LITERAL = '/^\[(?:[0-9A-Fa-f:.]+|[vV][0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&\'()*+,;=:]+)\]$/D';
    /** A request target that is a path alone with nothing to encode: the usual one, taken as it is. */
    private const PLAIN_PATH = '/^[A-Za-z0-9\-._~!$&\'()*+,;=:@\/]*+$/D';
    /** RFC 3986 Appendix B: scheme, authority, path, query, fragment of any URI reference. */
    private const REFERENCE = '/^(?:([^:\/?#]+):)?(?:\/\/([^\/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/sD';

    /** @var string */
    private $scheme = '';
    private string $userInfo = '';
    private string $host = '';
    /** As given; getPort() hides the scheme's default. */
    private ?int $port = null;
    /** @var string */
    private $path = '';
    private string $query = '';
    private string $fragment = '';
    /** @var ?string fromRequest(): the authority ("host[:port]") not split yet */
    private $pendingAuthority = null;
    /** @var ?string fromRequest(): the origin-form target not split into path, query and fragment yet */
    private $pendingTarget = null;
    /** __toString(), once built; clones start without it. */
    private ?string $string = null;

    /** @throws \InvalidArgumentException for a string that is no URI reference (a bad scheme, host or port) */
    public function __construct(string $uri = '')
    {
        if ($uri === '') {
            return;
        }
        // The pattern matches every string (it fails only on a PCRE error); the parts are judged below.
        if (\preg_match(self::REFERENCE, $uri, $parts, \PREG_UNMATCHED_AS_NULL) !== 1) {
            throw new \InvalidArgumentException('Unable to parse the URI: ' . \preg_last_error_msg());
        }
        if ($parts[1] !== null) {
            $this->scheme = self::filterScheme($parts[1]);
        }
        if ($parts[2] !== null) {
            $authority = $parts[2];
            $at = \strrpos($authority, '@');
            if ($at !== false) {
                $this->userInfo = self::encode(self::USER_INFO_ENCODE, \substr($authority, 0, $at));
                $authority = \substr($authority, $at + 1);
            }
            [$this->host, $this->port] = self::splitHostAndPort($authority);
        }
        $this->path = self::encode(self::PATH_ENCODE, (string) $parts[3]);
        $this->query = self::encode(self::QUERY_ENCODE, $parts[4] ?? '');
        $this->fragment = self::encode(self::QUERY_ENCODE, $parts[5] ?? '');
    }

    /**
     * The URI of a request received by the server: scheme http, $authority from the Host header
     * (or the server's address), path and query from an origin-form $target ("" for "*").
     * Nothing is split or encoded here; each part is, the first time it is read.
     *
     * $authority must have passed assertRequestAuthority() (the server's parser and
     * ServerRequest::fromParsed() see to that): otherwise reading host or port throws.
     */
    public static function fromRequest(string $authority, string $target, string $scheme = 'http'): self
    {
        $uri = new self();
        $uri->scheme = $scheme;
        $uri->pendingAuthority = $authority;
        $uri->pendingTarget = $target;

        return $uri;
    }

    /**
     * Whether $authority is a valid "host[:port]" as a Host header must be (no user information,
     * a port up to 65535), so that fromRequest() can split it later without failing.
     *
     * @throws \InvalidArgumentException
     */
    public static function assertRequestAuthority(string $authority): void
    {
        self::splitHostAndPort($authority);
    }

    public function getScheme(): string
    {
        return $this->scheme;
    }

    public function getAuthority(): string
    {
        if ($this->pendingAuthority !== null) {
            $this->splitAuthority();
        }
        if ($this->host === '') {
            return '';
        }
        $authority = $this->userInfo === '' ? $this->host : $this->userInfo . '@' . $this->host;
        $port = $this->getPort();

        return $port === null ? $authority : $authority . ':' . $port;
    }

    public function getUserInfo(): string
    {
        return $this->userInfo;
    }

    public function getHost(): string
    {
        if ($this->pendingAuthority !== null) {
            $this->splitAuthority();
        }

        return $this->host;
    }

    public function getPort(): ?int
    {
        if ($this->pendingAuthority !== null) {
            $this->splitAuthority();
        }
        if ($this->port !== null && (self::DEFAULT_PORTS[$this->scheme] ?? null) === $this->port) {
            return null;
        }

        return $this->port;
    }

    public function getPath(): string
    {
        if ($this->pendingTarget !== null) {
            // The router's call, on every request: one match settles the usual "/items/123".
            if (\preg_match(self::PLAIN_PATH, $this->pendingTarget) === 1) {
                $this->path = $this->pendingTarget;
                $this->pendingTarget = null;
            } else {
                $this->splitTarget();
            }
        }

        return $this->path;
    }

    public function getQuery(): string
    {
        if ($this->pendingTarget !== null) {
            $this->splitTarget();
        }

        return $this->query;
    }

    public function getFragment(): string
    {
        if ($this->pendingTarget !== null) {
            $this->splitTarget();
        }

        return $this->fragment;
    }

    /** @throws \InvalidArgumentException for a scheme that is not ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) */
    public function withScheme(string $scheme): static
    {
        $scheme = $scheme === '' ? '' : self::filterScheme($scheme);
        if ($scheme === $this->scheme) {
            return $this;
        }
        $new = clone $this;
        $new->scheme = $scheme;

        return $new;
    }

    /** An empty $user removes the user information, password and all. */
    public function withUserInfo(string $user, ?string $password = null): static
    {
        $info = $user === '' ? '' : self::encode(self::USER_ENCODE, $user);
        if ($info !== '' && $password !== null && $password !== '') {
            $info .= ':' . self::encode(self::USER_INFO_ENCODE, $password);
        }
        if ($info === $this->userInfo) {
            return $this;
        }
        $new = clone $this;
        $new->userInfo = $info;

        return $new;
    }

    /** @throws \InvalidArgumentException for a host with a delimiter, whitespace or a control character in it, or a malformed IP literal */
    public function withHost(string $host): static
    {
        $host = self::filterHost($host);
        if ($this->pendingAuthority !== null) {
            $this->splitAuthority();
        }
        if ($host === $this->host) {
            return $this;
        }
        $new = clone $this;
        $new->host = $host;

        return $new;
    }

    /** @throws \InvalidArgumentException for a port outside 0–65535 */
    public function withPort(?int $port): static
    {
        if ($port !== null && ($port < 0 || $port > 65535)) {
            throw new \InvalidArgumentException("Port $port is not between 0 and 65535");
        }
        if ($this->pendingAuthority !== null) {
            $this->splitAuthority();
        }
        if ($port === $this->port) {
            return $this;
        }
        $new = clone $this;
        $new->port = $port;

        return $new;
    }

    /** Characters a path may not hold (a space, "?", "#", a "%" starting no escape...) are percent-encoded. */
    public function withPath(string $path): static
    {
        $path = self::encode(self::PATH_ENCODE, $path);
        if ($this->pendingTarget !== null) {
            $this->splitTarget();
        }
        if ($path === $this->path) {
            return $this;
        }
        $new = clone $this;
        $new->path = $path;

        return $new;
    }

    /** The query without its "?"; characters it may not hold ("#", a space...) are percent-encoded. */
    public function withQuery(string $query): static
    {
        $query = self::encode(self::QUERY_ENCODE, $query);
        if ($this->pendingTarget !== null) {
            $this->splitTarget();
        }
        if ($query === $this->query) {
            return $this;
        }
        $new = clone $this;
        $new->query = $query;

        return $new;
    }

    /** The fragment without its "#"; characters it may not hold are percent-encoded. */
    public function withFragment(string $fragment): static
    {
        $fragment = self::encode(self::QUERY_ENCODE, $fragment);
        if ($this->pendingTarget !== null) {
            $this->splitTarget();
        }
        if ($fragment === $this->fragment) {
            return $this;
        }
        $new = clone $this;
        $new->fragment = $fragment;

        return $new;
    }

    /**
     * The URI reference as PSR-7 builds it: a rootless path after an authority gets a leading
     * "/", leading slashes of a path without authority are reduced to one (so the path cannot
     * be read as an authority), empty query and fragment are left out.
     */
    public function __toString(): string
    {
        if ($this->string !== null) {
            return $this->string;
        }
        $authority = $this->getAuthority();
        $path = $this->getPath();
        $uri = $this->scheme === '' ? '' : $this->scheme . ':';
        if ($authority !== '') {
            $uri .= '//' . $authority;
            if ($path !== '' && $path[0] !== '/') {
                $path = '/' . $path;
            }
        } elseif (\str_starts_with($path, '//')) {
            $path = '/' . \ltrim($path, '/');
        }
        $uri .= $path;
        if ($this->query !== '') {
            $uri .= '?' . $this->query;
        }
        if ($this->fragment !== '') {
            $uri .= '#' . $this->fragment;
        }

        return $this->string = $uri;
    }

    public function __clone()
    {
        $this->string = null;
    }

    private function splitAuthority(): void
    {
        [$this->host, $this->port] = self::splitHostAndPort((string) $this->pendingAuthority);
        $this->pendingAuthority = null;
    }

    /** The parser accepted the target: visible ASCII only, starting with "/" (or "" for "*"). */
    private function splitTarget(): void
    {
        $target = (string) $this->pendingTarget;
        $this->pendingTarget = null;
        $pathEnd = \strcspn($target, '?#');
        if ($pathEnd < \strlen($target)) {
            $hash = \strpos($target, '#', $pathEnd);
            if ($target[$pathEnd] === '?') {
                $query = $hash === false ? \substr($target, $pathEnd + 1) : \substr($target, $pathEnd + 1, $hash - $pathEnd - 1);
                $this->query = self::encode(self::QUERY_ENCODE, $query);
            }
            if ($hash !== false) {
                $this->fragment = self::encode(self::QUERY_ENCODE, \substr($target, $hash + 1));
            }
            $target = \substr($target, 0, $pathEnd);
        }
        $this->path = self::encode(self::PATH_ENCODE, $target);
    }

    /**
     * "host[:port]": an IP literal in brackets or a reg-name, an optional port of up to five
     * digits and 65535 (an empty one is no port, as RFC 3986 allows).
     *
     * @return array{string, ?int}
     * @throws \InvalidArgumentException
     */
    private static function splitHostAndPort(string $authority): array
    {
        if ($authority !== '' && $authority[0] === '[') {
            $close = \strpos($authority, ']');
            if ($close === false) {
                throw new \InvalidArgumentException('Unterminated IP literal in the authority "' . self::printable($authority) . '"');
            }
            $host = \substr($authority, 0, $close + 1);
            $rest = \substr($authority, $close + 1);
            if ($rest !== '' && $rest[0] !== ':') {
                throw new \InvalidArgumentException('Unexpected characters after the IP literal in "' . self::printable($authority) . '"');
            }
            $port = $rest === '' ? null : \substr($rest, 1);
        } else {
            $colon = \strrpos($authority, ':');
            $host = $colon === false ? $authority : \substr($authority, 0, $colon);
            $port = $colon === false ? null : \substr($authority, $colon + 1);
        }
        if ($port === null || $port === '') {
            return [self::filterHost($host), null];
        }
        if ($host === '') {
            throw new \InvalidArgumentException('A port without a host in "' . self::printable($authority) . '"');
        }
        // At most five digits, as PHP's own URL parser and so every PSR-7 implementation built on it has it.
        if (\strlen($port) > 5 || \preg_match('/^[0-9]+$/D', $port) !== 1 || (int) $port > 65535) {
            throw new \InvalidArgumentException('Invalid port in "' . self::printable($authority) . '"; ports are 0–65535, up to five digits');
        }

        return [self::filterHost($host), (int) $port];
    }

    /** @throws \InvalidArgumentException */
    private static function filterHost(string $host): string
    {
        if ($host === '') {
            return '';
        }
        if ($host[0] === '[') {
            if (\preg_match(self::IP_LITERAL, $host) !== 1) {
                throw new \InvalidArgumentException('Malformed IP literal "' . self::printable($host) . '"');
            }

            return \strtolower($host);
        }
        if (\preg_match(self::HOST_INVALID, $host) === 1) {
            throw new \InvalidArgumentException('Invalid host "' . self::printable($host) . '"');
        }

        return \strtolower(self::encode(self::HOST_ENCODE, $host));
    }

    /** @throws \InvalidArgumentException */
    private static function filterScheme(string $scheme): string
    {
        if (\preg_match('/^[A-Za-z][A-Za-z0-9+\-.]*$/D', $scheme) !== 1) {
            throw new \InvalidArgumentException('Invalid scheme "' . self::printable($scheme) . '"');
        }

        return \strtolower($scheme);
    }

    /** $value with every run $pattern finds percent-encoded; most values have none, and one match settles that. */
    private static function encode(string $pattern, string $value): string
    {
        if ($value === '' || \preg_match($pattern, $value) !== 1) {
            return $value;
        }

        return \preg_replace_callback($pattern, static fn (array $match): string => \rawurlencode($match[0]), $value)
            ?? throw new \RuntimeException('Percent-encoding failed: ' . \preg_last_error_msg());
    }

    private static function printable(string $value): string
    {
        return \addcslashes($value, "\0..\37\177..\377");
    }
}
