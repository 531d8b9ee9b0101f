<?php

declare(strict_types=1);

namespace Bobbin\Http\Message;

use Nyholm\Psr7\Factory\Psr17Factory;
use Psr\Http\Message\ResponseFactoryInterface;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestFactoryInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Message\StreamFactoryInterface;
use Psr\Http\Message\StreamInterface;
use Psr\Http\Message\UriFactoryInterface;
use Psr\Http\Message\UriInterface;

/**
 * PSR-17 factories for Bobbin's message classes. In-memory streams are StringStreams (which the
 * server writes without the stream API); streams over files or resources and URIs come from
 * nyholm/psr7, which does those well and is not on the hot path.
 */
final class MessageFactory implements ResponseFactoryInterface, StreamFactoryInterface, UriFactoryInterface, ServerRequestFactoryInterface
{
    private ?Psr17Factory $nyholm = null;

    public function createResponse(int $code = 200, string $reasonPhrase = ''): ResponseInterface
    {
        return new Response($code, [], '', '1.1', $reasonPhrase);
    }

    public function createStream(string $content = ''): StreamInterface
    {
        return new StringStream($content);
    }

    public function createStreamFromFile(string $filename, string $mode = 'r'): StreamInterface
    {
        return $this->nyholm()->createStreamFromFile($filename, $mode);
    }

    public function createStreamFromResource($resource): StreamInterface
    {
        return $this->nyholm()->createStreamFromResource($resource);
    }

    public function createUri(string $uri = ''): UriInterface
    {
        return $this->nyholm()->createUri($uri);
    }

    /** @param array<string, mixed> $serverParams */
    public function createServerRequest(string $method, $uri, array $serverParams = []): ServerRequestInterface
    {
        return ServerRequest::create($method, $uri, $serverParams);
    }

    private function nyholm(): Psr17Factory
    {
        return $this->nyholm ??= new Psr17Factory();
    }
}
