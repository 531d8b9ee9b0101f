<?php

declare(strict_types=1);

namespace Bobbin\Http\StaticFiles;

use Psr\Http\Message\ServerRequestInterface;

/**
 * The request fields a static answer depends on (null: absent).
 *
 * @immutable
 *
 * @internal made by StaticFilesHandler for FileAnswers
 */
final class RequestConditions
{
    public function __construct(
        public readonly string $method = 'GET',
        public readonly ?string $ifNoneMatch = null,
        public readonly ?string $ifModifiedSince = null,
        public readonly ?string $range = null,
        public readonly ?string $ifRange = null,
    ) {
    }

    public static function of(ServerRequestInterface $request): self
    {
        return new self(
            $request->getMethod(),
            self::field($request, 'if-none-match'),
            self::field($request, 'if-modified-since'),
            self::field($request, 'range'),
            self::field($request, 'if-range'),
        );
    }

    private static function field(ServerRequestInterface $request, string $name): ?string
    {
        return $request->hasHeader($name) ? $request->getHeaderLine($name) : null;
    }
}
