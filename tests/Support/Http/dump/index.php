<?php

declare(strict_types=1);

/*
 * APP_FILE answering every request with JSON of what the application sees through PSR-7, in
 * the shape of tests/Support/Http/dump-fpm/index.php (the same under PHP-FPM, from superglobals).
 */

use Bobbin\Http\Message\Response;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Message\UploadedFileInterface;

return static function (ServerRequestInterface $request): ResponseInterface {
    $describe = static function (array $files) use (&$describe): array {
        $out = [];
        foreach ($files as $key => $file) {
            $out[$key] = $file instanceof UploadedFileInterface ? [
                'name' => $file->getClientFilename(),
                'type' => $file->getClientMediaType(),
                'size' => $file->getSize(),
                'error' => $file->getError(),
                'md5' => $file->getError() === \UPLOAD_ERR_OK ? \md5((string) $file->getStream()) : null,
            ] : $describe($file);
        }

        return $out;
    };

    return new Response(200, ['Content-Type' => 'application/json'], \json_encode([
        'server' => $request->getServerParams(),
        'get' => $request->getQueryParams(),
        'post' => $request->getParsedBody() ?? [],
        'cookie' => $request->getCookieParams(),
        'files' => $describe($request->getUploadedFiles()),
        'uri' => (string) $request->getUri(),
    ], \JSON_THROW_ON_ERROR));
};
