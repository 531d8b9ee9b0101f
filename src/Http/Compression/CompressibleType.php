<?php

declare(strict_types=1);

namespace Bobbin\Http\Compression;

/**
 * Whether a media type is worth compressing: text and the structured text formats (JSON,
 * JavaScript, XML and their +json/+xml kin, SVG, WebAssembly). Images, audio, video, fonts in
 * WOFF and archives are compressed already: gzip would cost CPU to gain nothing.
 *
 * @internal used by ResponseCompression
 */
final class CompressibleType
{
    private const TYPES = [
        'application/json' => true, 'application/javascript' => true, 'application/x-javascript' => true,
        'application/xml' => true, 'application/xhtml+xml' => true, 'application/rss+xml' => true,
        'application/atom+xml' => true, 'application/manifest+json' => true, 'application/ld+json' => true,
        'application/wasm' => true, 'application/x-ndjson' => true, 'application/graphql-response+json' => true,
        'image/svg+xml' => true, 'image/x-icon' => true, 'font/ttf' => true, 'font/otf' => true,
    ];

    public static function is(string $contentType): bool
    {
        $semicolon = \strpos($contentType, ';');
        $type = \strtolower(\trim($semicolon === false ? $contentType : \substr($contentType, 0, $semicolon)));

        return \str_starts_with($type, 'text/') || isset(self::TYPES[$type])
            || \str_ends_with($type, '+json') || \str_ends_with($type, '+xml');
    }
}
