<?php

declare(strict_types=1);

namespace Bobbin\Http\StaticFiles;

/**
 * The media type of a static file, by its extension: the types of the web (nginx's mime.types,
 * trimmed), text ones in UTF-8; anything else is application/octet-stream, which a browser
 * downloads rather than renders.
 *
 * @internal used by StaticFilesHandler
 */
final class ContentTypes
{
    private const TYPES = [
        'html' => 'text/html; charset=utf-8', 'htm' => 'text/html; charset=utf-8',
        'css' => 'text/css; charset=utf-8', 'js' => 'text/javascript; charset=utf-8',
        'mjs' => 'text/javascript; charset=utf-8', 'json' => 'application/json',
        'map' => 'application/json', 'webmanifest' => 'application/manifest+json',
        'txt' => 'text/plain; charset=utf-8', 'csv' => 'text/csv; charset=utf-8',
        'md' => 'text/markdown; charset=utf-8', 'xml' => 'application/xml', 'rss' => 'application/rss+xml',
        'atom' => 'application/atom+xml', 'svg' => 'image/svg+xml', 'png' => 'image/png',
        'jpg' => 'image/jpeg', 'jpeg' => 'image/jpeg', 'gif' => 'image/gif', 'webp' => 'image/webp',
        'avif' => 'image/avif', 'ico' => 'image/x-icon', 'bmp' => 'image/bmp',
        'woff' => 'font/woff', 'woff2' => 'font/woff2', 'ttf' => 'font/ttf', 'otf' => 'font/otf',
        'pdf' => 'application/pdf', 'wasm' => 'application/wasm', 'zip' => 'application/zip',
        'gz' => 'application/gzip', 'mp4' => 'video/mp4', 'webm' => 'video/webm',
        'mp3' => 'audio/mpeg', 'ogg' => 'audio/ogg', 'wav' => 'audio/wav',
    ];

    public static function for(string $path): string
    {
        $dot = \strrpos($path, '.');
        $slash = \strrpos($path, '/');
        if ($dot === false || ($slash !== false && $dot < $slash)) {
            return 'application/octet-stream';
        }

        return self::TYPES[\strtolower(\substr($path, $dot + 1))] ?? 'application/octet-stream';
    }
}
