<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\Message;

use Bobbin\Http\Message\MessageFactory;
use Bobbin\Http\Message\Response;
use Bobbin\Http\Message\ServerRequest;
use Bobbin\Http\Message\StringStream;
use Nyholm\Psr7\Uri;
use PHPUnit\Framework\TestCase;

final class MessageFactoryTest extends TestCase
{
    public function testCreateResponseGivesABobbinResponse(): void
    {
        $factory = new MessageFactory();

        $response = $factory->createResponse(404);
        self::assertInstanceOf(Response::class, $response);
        self::assertSame(404, $response->getStatusCode());
        self::assertSame('Not Found', $response->getReasonPhrase());
        self::assertSame('Nope', $factory->createResponse(404, 'Nope')->getReasonPhrase());
        self::assertSame(200, $factory->createResponse()->getStatusCode());
    }

    public function testCreateStreamGivesAStringStreamAtItsStart(): void
    {
        $stream = (new MessageFactory())->createStream('content');

        self::assertInstanceOf(StringStream::class, $stream);
        self::assertSame(0, $stream->tell());
        self::assertSame('content', $stream->getContents());
    }

    public function testStreamsFromFilesAndResourcesAreReadable(): void
    {
        $factory = new MessageFactory();
        $file = \tempnam(\sys_get_temp_dir(), 'bobbin-factory-');
        self::assertIsString($file);
        try {
            \file_put_contents($file, 'on disk');
            self::assertSame('on disk', (string) $factory->createStreamFromFile($file));

            $resource = \fopen('php://memory', 'w+');
            self::assertIsResource($resource);
            \fwrite($resource, 'in memory');
            self::assertSame('in memory', (string) $factory->createStreamFromResource($resource));
        } finally {
            @\unlink($file);
        }
    }

    public function testCreateUriParsesTheUri(): void
    {
        $uri = (new MessageFactory())->createUri('https://example.test/a?b=c');

        self::assertSame('example.test', $uri->getHost());
        self::assertSame('/a', $uri->getPath());
    }

    public function testCreateServerRequestTakesAStringOrAUri(): void
    {
        $factory = new MessageFactory();

        $request = $factory->createServerRequest('POST', 'http://example.test/form', ['REMOTE_ADDR' => '::1']);
        self::assertInstanceOf(ServerRequest::class, $request);
        self::assertSame('POST', $request->getMethod());
        self::assertSame('http://example.test/form', (string) $request->getUri());
        self::assertSame(['REMOTE_ADDR' => '::1'], $request->getServerParams());

        $uri = new Uri('http://other.test/');
        self::assertSame($uri, $factory->createServerRequest('GET', $uri)->getUri());
    }
}
