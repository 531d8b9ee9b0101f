<?php

declare(strict_types=1);

namespace Bobbin\Http\Sapi;

use Psr\Http\Message\ResponseInterface;

/**
 * Sends a PSR-7 response through PHP's SAPI (PHP-FPM, php -S): status line, headers, then the
 * body in chunks so a large streamed body is never held in memory twice.
 *
 * @internal used by SapiRunner
 */
final class ResponseEmitter
{
    private const CHUNK_BYTES = 65536;

    public function emit(ResponseInterface $response, bool $withBody = true): void
    {
        if (\headers_sent($file, $line)) {
            throw new \LogicException("Headers were already sent (output started at $file:$line)");
        }
        $status = $response->getStatusCode();
        \header(\sprintf('HTTP/%s %d %s', $response->getProtocolVersion(), $status, $response->getReasonPhrase()), true, $status);
        foreach ($response->getHeaders() as $name => $values) {
            $replace = \strcasecmp((string) $name, 'Set-Cookie') !== 0;
            foreach ($values as $value) {
                \header("$name: $value", $replace, $status);
                $replace = false;
            }
        }
        if (!$withBody || $status === 204 || $status === 304) {
            return;
        }
        $body = $response->getBody();
        if ($body->isSeekable()) {
            $body->rewind();
        }
        if ($body->getSize() !== null && $body->getSize() <= self::CHUNK_BYTES) {
            echo (string) $body;

            return;
        }
        $produced = $body->getSize() === null; // a GeneratorStream: each piece goes out as it comes
        while (!$body->eof()) {
            $piece = $body->read(self::CHUNK_BYTES);
            if ($piece === '') {
                break;
            }
            echo $piece;
            if ($produced) {
                @\ob_flush();
                \flush();
            }
        }
    }
}
