<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Legacy\Apps;

/** One response as a browser without JavaScript sees it: status, redirect, cookies set, HTML. */
final readonly class Page
{
    /** @param list<string> $cookieNames names of the cookies it sets or deletes, in order */
    public function __construct(
        public int $status,
        public string $location,
        public array $cookieNames,
        public string $body,
    ) {
    }

    /** @throws \RuntimeException for what curl printed that is no HTTP response */
    public static function parse(string $raw): self
    {
        // A "100 Continue" before the response, when curl sent Expect.
        while (\preg_match('~^HTTP/1\.[01] 100[^\r\n]*\r\n\r\n~', $raw, $m) === 1) {
            $raw = \substr($raw, \strlen($m[0]));
        }
        [$head, $body] = \explode("\r\n\r\n", $raw, 2) + [1 => ''];
        if (\preg_match('~^HTTP/1\.[01] (\d{3})~', $head, $status) !== 1) {
            throw new \RuntimeException('Not an HTTP response: ' . \substr($raw, 0, 200));
        }
        \preg_match('~^Location: *([^\r\n]*)~mi', $head, $location);
        \preg_match_all('~^Set-Cookie: *([^=\r\n]+)=~mi', $head, $cookies);

        return new self((int) $status[1], \trim($location[1] ?? ''), \array_values(\array_map('trim', $cookies[1])), $body);
    }

    /** The value of the first form field named $name (hidden inputs: nonces, tokens, ids). */
    public function field(string $name): string
    {
        $quoted = \preg_quote($name, '~');
        if (\preg_match('~<input[^>]*name=["\']' . $quoted . '["\'][^>]*value=["\']([^"\']*)["\']~', $this->body, $m) === 1
            || \preg_match('~<input[^>]*value=["\']([^"\']*)["\'][^>]*name=["\']' . $quoted . '["\']~', $this->body, $m) === 1) {
            return \html_entity_decode($m[1]);
        }
        throw new \RuntimeException("No field $name in the page:\n" . \substr($this->body, 0, 2000));
    }

    /** The first href matching $pattern (a regex on the decoded href), decoded. */
    public function link(string $pattern): string
    {
        foreach (\preg_match_all('~href=["\']([^"\']+)["\']~', $this->body, $m) > 0 ? $m[1] : [] as $href) {
            $href = \html_entity_decode($href);
            if (\preg_match($pattern, $href) === 1) {
                return $href;
            }
        }
        throw new \RuntimeException("No link matching $pattern in the page");
    }
}
