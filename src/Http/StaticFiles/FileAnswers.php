<?php

declare(strict_types=1);

namespace Bobbin\Http\StaticFiles;

/**
 * Decides the answer to a GET or HEAD of a static file: conditional requests (RFC 9110 §13),
 * ranges (§14) and the headers. Pure: file facts and request fields in, an answer out.
 *
 * The order is the RFC's (§13.2.2): If-None-Match (weak comparison; "*" matches any file),
 * else If-Modified-Since (a date the file is not newer than) → 304; then Range, honoured only
 * when If-Range is absent or names this very file (its strong ETag, or its Last-Modified date
 * exactly) → 206 or 416. A Last-Modified date is compared to the second, as HTTP dates go.
 *
 * @internal used by StaticFilesHandler
 */
final class FileAnswers
{
    public static function decide(RequestConditions $request, FileFacts $file): StaticAnswer
    {
        $etag = $file->etag();
        $lastModified = $file->lastModified();
        $validators = ['ETag' => $etag, 'Last-Modified' => $lastModified];
        if ($file->varies) {
            $validators['Vary'] = 'Accept-Encoding';
        }
        if (self::notModified($request, $etag, $file->modified)) {
            return new StaticAnswer(304, $validators, false);
        }
        $headers = ['Content-Type' => $file->contentType] + $validators + ['Accept-Ranges' => 'bytes'];
        if ($file->encoding !== null) {
            $headers['Content-Encoding'] = $file->encoding;
        }
        $range = self::rangeApplies($request, $etag, $lastModified) ? ByteRange::parse($request->range, $file->size) : null;
        if ($range !== null && $range->kind === RangeKind::Unsatisfiable) {
            return new StaticAnswer(416, $validators + ['Content-Range' => 'bytes */' . $file->size, 'Content-Length' => '0'], false);
        }
        $head = $request->method === 'HEAD';
        if ($range !== null && $range->kind === RangeKind::Single) {
            $headers['Content-Range'] = 'bytes ' . $range->first . '-' . $range->last . '/' . $file->size;
            $headers['Content-Length'] = (string) $range->length();

            return new StaticAnswer(206, $headers, !$head, $range->first, $range->length());
        }
        $headers['Content-Length'] = (string) $file->size;

        return new StaticAnswer(200, $headers, !$head, 0, $file->size);
    }

    private static function notModified(RequestConditions $request, string $etag, int $modified): bool
    {
        if ($request->ifNoneMatch !== null) {
            $weak = \substr($etag, 0, 1) === 'W' ? \substr($etag, 2) : $etag;
            foreach (\explode(',', $request->ifNoneMatch) as $tag) {
                $tag = \trim($tag, " \t");
                if ($tag === '*' || $tag === $weak || (\str_starts_with($tag, 'W/') && \substr($tag, 2) === $weak)) {
                    return true;
                }
            }

            return false; // If-Modified-Since is ignored when If-None-Match is present (§13.1.3)
        }
        if ($request->ifModifiedSince !== null) {
            $since = self::httpDate($request->ifModifiedSince);

            return $since !== null && $modified <= $since;
        }

        return false;
    }

    private static function rangeApplies(RequestConditions $request, string $etag, string $lastModified): bool
    {
        if ($request->range === null || ($request->method !== 'GET' && $request->method !== 'HEAD')) {
            return false;
        }
        if ($request->ifRange === null) {
            return true;
        }
        $ifRange = \trim($request->ifRange, " \t");

        // A strong comparison: a weak tag never matches (§13.1.5).
        return \str_starts_with($ifRange, '"') ? $ifRange === $etag : $ifRange === $lastModified;
    }

    /** An IMF-fixdate (the only form a client should send); null for anything else. */
    private static function httpDate(string $value): ?int
    {
        $date = \DateTimeImmutable::createFromFormat('!D, d M Y H:i:s \G\M\T', \trim($value), new \DateTimeZone('UTC'));

        return $date === false ? null : $date->getTimestamp();
    }
}
