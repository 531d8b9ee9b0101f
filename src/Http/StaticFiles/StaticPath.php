<?php

declare(strict_types=1);

namespace Bobbin\Http\StaticFiles;

/**
 * Judges the part of a request path below a mount's prefix, before the file system is asked.
 * Pure.
 *
 * - a "." or ".." segment (browsers never send one: they resolve them first), a NUL byte or a
 *   control character, decoded or not: 400;
 * - a percent-encoded slash or backslash (%2F, %5C), or a backslash: not a file name (the
 *   application gets the request: its router may give "%2F" a meaning; a file never has one);
 * - a segment starting with "." (a dotfile or dot-directory: .git, .env, .htpasswd) is refused
 *   with 404 unless dotfiles are allowed, except ".well-known" (RFC 8615: ACME challenges,
 *   security.txt), which is always served;
 * - a path ending in "/" names a directory, which is never listed: the application gets it.
 */
final class StaticPath
{
    public function __construct(public readonly PathVerdict $verdict, public readonly string $relative = '')
    {
    }

    /** @param string $raw the path below the prefix as sent (percent-encoded), "" or starting with "/" */
    public static function judge(string $raw, bool $allowDotfiles): self
    {
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
        $refused = false;
        foreach (\explode('/', \substr($decoded, 1)) as $index => $segment) {
            if ($segment === '.' || $segment === '..') {
                return new self(PathVerdict::BadRequest);
            }
            if ($segment === '') {
                return new self(PathVerdict::Pass); // "a//b": not a name a file has
            }
            if ($segment[0] === '.' && !$allowDotfiles && !($index === 0 && $segment === '.well-known')) {
                $refused = true;
            }
        }

        return $refused ? new self(PathVerdict::Refused) : new self(PathVerdict::Look, $decoded);
    }
}
