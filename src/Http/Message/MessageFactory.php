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
 * server writes without the stream API); streams over files or resources come from
 * nyholm/psr7, which does those well and is not on the hot path.
 */
final class MessageFactory implements ResponseFactoryInterface, StreamFactoryInterface, UriFactoryInterface, ServerRequestFactoryInterface
{
    private ?Psr17Factory $nyholm = null;
    /**
     * One empty response per status code, cloned for every createResponse(): responses are
     * immutable, and a clone copies the properties without running the constructor's checks
     * and look-ups again.
     *
     * @var array<int, Response>
     */
    private array $prototypes = [];

    /** @throws \InvalidArgumentException for a status outside 100–599 or a reason with control characters */
    public function createResponse(int $code = 200, string $reasonPhrase = ''): ResponseInterface
    {
        if ($reasonPhrase !== '') {
            return new Response($code, [], '', '1.1', $reasonPhrase);
        }

        return clone ($this->prototypes[$code] ??= new Response($code));
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

    /** @throws \InvalidArgumentException for a string that is no URI reference */
    public function createUri(string $uri = ''): UriInterface
    {
        return new Uri($uri);
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
