<?php

declare(strict_types=1);

namespace Bobbin\Http\StaticFiles;

/**
 * Judges the part of a request path below a mount's prefix, before the file system is asked.
 * Pure.
 *
 * - "." and ".." segments are resolved (browsers resolve them before sending; nginx does too);
 *   a ".." that would climb above the mount's directory is a 400, as in nginx, and so is a NUL
 *   byte or another control character, decoded or not;
 * - a percent-encoded slash or backslash (%2F, %5C), or a backslash: not a file name (the
 *   application gets the request: its router may give "%2F" a meaning; a file never has one);
 * - a segment starting with "." (a dotfile or dot-directory: .git, .env, .htpasswd) is refused
 *   with 404 unless dotfiles are allowed, except ".well-known" (RFC 8615: ACME challenges,
 *   security.txt), which is always served;
 * - a path ending in "/" names a directory, which is never listed: the application gets it.
 *
 * @internal used by StaticFilesHandler
 */
final class StaticPath
{
    public function __construct(public readonly PathVerdict $verdict, public readonly string $relative = '')
    {
    }

    /** @param string $raw the path below the prefix as sent (percent-encoded), "" or starting with "/" */
    public static function judge(string $raw, bool $allowDotfiles): self
    {
        // The usual path ("/css/site.css"): nothing encoded, no dot segment or dotfile, no control character.
        if ($raw !== '' && $raw[0] === '/' && \strpbrk($raw, "%\\\0\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f") === false
            && !\str_contains($raw, '/.') && !\str_contains($raw, '//') && !\str_ends_with($raw, '/')) {
            return new self(PathVerdict::Look, $raw);
        }
        if (\preg_match('/%(?![0-9a-fA-F]{2})/', $raw) === 1) {
            return new self(PathVerdict::BadRequest);
        }
        if (\stripos($raw, '%2f') !== false || \stripos($raw, '%5c') !== false || \str_contains($raw, '\\')) {
            return new self(PathVerdict::Pass);
        }
        $decoded = \rawurldecode($raw);
        if (\preg_match('/[\x00-\x1f\x7f]/', $decoded) === 1) {
            return new self(PathVerdict::BadRequest);
        }
        if ($decoded === '' || \str_ends_with($decoded, '/')) {
            return new self(PathVerdict::Pass);
        }
        // "." and ".." resolved as nginx resolves them, never above the mount's directory.
        $segments = [];
        foreach (\explode('/', \substr($decoded, 1)) as $segment) {
            if ($segment === '..') {
                if ($segments === []) {
                    return new self(PathVerdict::BadRequest);
                }
                \array_pop($segments);
            } elseif ($segment === '') {
                return new self(PathVerdict::Pass); // "a//b": not a name a file has
            } elseif ($segment !== '.') {
                $segments[] = $segment;
            }
        }
        if ($segments === [] || \preg_match('~/\.\.?$~', $decoded) === 1) {
            return new self(PathVerdict::Pass); // a directory
        }
        $refused = false;
        foreach ($segments as $index => $segment) {
            if ($segment[0] === '.' && !$allowDotfiles && !($index === 0 && $segment === '.well-known')) {
                $refused = true;
            }
        }
        $decoded = '/' . \implode('/', $segments);

        return $refused ? new self(PathVerdict::Refused) : new self(PathVerdict::Look, $decoded);
    }
}
