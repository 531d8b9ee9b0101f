<?php

declare(strict_types=1);

/*
 * The application of bench/soak/run.php: the aircraft application (apps/aircraft/server.php,
 * its contract untouched) with a few routes of the soak's own in front of it:
 *   /              200 "ok" (the fresh-client probe)
 *   /soak/exit     exit(7) in the middle of the handler
 *   /soak/oom      allocates 1 MiB strings until memory_limit ends the worker with a fatal error
 *   /soak/upload   POST multipart/form-data with a file field "file": 200 {"size": N, "sha1": "…"}
 *   anything else  the aircraft application
 */

use Nyholm\Psr7\Response;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Message\UploadedFileInterface;
use Psr\Http\Server\RequestHandlerInterface;

$aircraft = require \dirname(__DIR__, 2) . '/apps/aircraft/server.php';
\assert($aircraft instanceof RequestHandlerInterface);

return static function (ServerRequestInterface $request) use ($aircraft): ResponseInterface {
    switch ($request->getUri()->getPath()) {
        case '/':
            return new Response(200, ['Content-Type' => 'text/plain'], "ok\n");
        case '/soak/exit':
            exit(7);
        case '/soak/oom':
            $hog = [];
            while (true) {
                $hog[] = \str_repeat('y', 1 << 20);
            }
        case '/soak/upload':
            $file = $request->getUploadedFiles()['file'] ?? null;
            if (!$file instanceof UploadedFileInterface || $file->getError() !== \UPLOAD_ERR_OK) {
                return new Response(400, ['Content-Type' => 'application/json'], '{"error":"no file"}');
            }
            $stream = $file->getStream();
            $stream->rewind();
            $hash = \hash_init('sha1');
            $size = 0;
            while (!$stream->eof()) {
                $chunk = $stream->read(65536);
                $size += \strlen($chunk);
                \hash_update($hash, $chunk);
            }

            return new Response(200, ['Content-Type' => 'application/json'], \json_encode(['size' => $size, 'sha1' => \hash_final($hash)], \JSON_THROW_ON_ERROR));
        default:
            return $aircraft->handle($request);
    }
};
