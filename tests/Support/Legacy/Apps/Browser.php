<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Legacy\Apps;

/**
 * One client with its own cookie jar, driving curl (a real client, as a browser without
 * JavaScript): requests can be started and awaited later, so two browsers' requests run at
 * once. Every response is recorded, normalised, for the comparison with the other server.
 */
final class Browser
{
    private readonly string $jar;
    /** @var list<array{string, string, string, int, string, list<string>}> */
    private array $transcript = [];

    /** @param (\Closure(Page): void)|null $check runs on every response this browser gets (throws ScenarioFailure) */
    public function __construct(public readonly string $name, private readonly string $base, private readonly ?\Closure $check = null)
    {
        $this->jar = (string) \tempnam(\sys_get_temp_dir(), 'bobbin-jar-');
    }

    public function __destruct()
    {
        @\unlink($this->jar);
    }

    /** @param array<string, string>|null $form POST fields, or null for a GET */
    public function start(string $path, ?array $form = null): PendingPage
    {
        // A relative Location ("adminer.php?…") is relative to the root: every page here is there.
        $url = \str_starts_with($path, 'http') ? $path : $this->base . '/' . \ltrim($path, '/');
        $command = ['curl', '-sS', '-i', '--max-time', '30', '-H', 'Expect:', '-c', $this->jar, '-b', $this->jar];
        if ($form !== null) {
            $command = [...$command, '--data-binary', \http_build_query($form), '-H', 'Content-Type: application/x-www-form-urlencoded'];
        }
        $process = \proc_open([...$command, $url], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        if (!\is_resource($process)) {
            throw new \RuntimeException('Could not start curl');
        }

        return new PendingPage($process, $pipes, function (Page $page) use ($url, $form): void {
            $this->transcript[] = [$this->name, $form === null ? 'GET' : 'POST', $this->normalize($url), $page->status, $this->normalize($page->location), \array_map($this->normalizeCookie(...), $page->cookieNames)];
            if ($this->check !== null) {
                ($this->check)($page);
            }
        });
    }

    /** @param array<string, string>|null $form */
    public function open(string $path, ?array $form = null): Page
    {
        return $this->start($path, $form)->page();
    }

    /** The cookies in this browser's jar as one Cookie header value (every path's: for a load generator). */
    public function cookieHeader(): string
    {
        $pairs = [];
        foreach (\file($this->jar, \FILE_IGNORE_NEW_LINES) ?: [] as $line) {
            // curl's Netscape format: domain, subdomains, path, secure, expiry, name, value;
            // HttpOnly cookies are written with a "#HttpOnly_" prefix to the domain.
            $fields = \explode("\t", \preg_replace('~^#HttpOnly_~', '', $line) ?? $line);
            if (\count($fields) === 7 && !\str_starts_with($fields[0], '#')) {
                $pairs[] = $fields[5] . '=' . $fields[6];
            }
        }

        return \implode('; ', $pairs);
    }

    /** @return list<array{string, string, string, int, string, list<string>}> */
    public function transcript(): array
    {
        return $this->transcript;
    }

    /** What differs by nature between two installs: the port, per-install hashes and random values. */
    private function normalize(string $url): string
    {
        $port = (string) \parse_url($this->base, \PHP_URL_PORT);
        $url = \str_replace([$this->base, '127.0.0.1%3A' . $port], ['BASE', 'HOST'], $url);

        return (string) \preg_replace(
            // …and the day in a permalink, should the two servers' runs straddle midnight.
            ['~(_wpnonce|moderation-hash|token)=[0-9a-f]+~', '~(username|server)=[^&]*~', '~(bobbin_[a-z]+)_[0-9a-f]{8}~', '~/\d{4}/\d{2}/\d{2}/~'],
            ['$1=…', '$1=…', '$1_…', '/YYYY/MM/DD/'],
            $url,
        );
    }

    private function normalizeCookie(string $name): string
    {
        // WordPress's COOKIEHASH is the md5 of the site's URL, which holds the port.
        return (string) \preg_replace('~_[0-9a-f]{32}$~', '_HASH', $name);
    }
}
