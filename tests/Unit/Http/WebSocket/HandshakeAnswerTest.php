<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\WebSocket;

use Bobbin\Http\Message\ServerRequest;
use Bobbin\Http\RequestIds;
use Bobbin\Http\WebSocket\WebSocketOptions;
use Bobbin\Http\WebSocket\WebSocketUpgrade;
use PHPUnit\Framework\TestCase;
use Psr\Http\Message\ServerRequestInterface;

/** What accept() answers to the handshake's negotiations: permessage-deflate and subprotocols. */
final class HandshakeAnswerTest extends TestCase
{
    protected function tearDown(): void
    {
        WebSocketUpgrade::$pending = [];
    }

    public function testTheFirstOfTheClientsSubprotocolsThatTheServerSpeaksIsAnswered(): void
    {
        $request = self::handshake(['Sec-WebSocket-Protocol' => 'chat.v2, chat.v1, json']);
        $response = WebSocketUpgrade::accept($request, static function (): void {
        }, protocols: ['json', 'chat.v1']);

        self::assertSame(101, $response->getStatusCode());
        self::assertSame('chat.v1', $response->getHeaderLine('Sec-WebSocket-Protocol'), 'the client\'s order of preference');
        self::assertSame('chat.v1', WebSocketUpgrade::take('id-1')[4] ?? null);
    }

    public function testNoCommonSubprotocolLeavesTheHeaderOutAndTheHandshakeGoesOn(): void
    {
        foreach ([['Sec-WebSocket-Protocol' => 'mqtt'], []] as $headers) {
            $response = WebSocketUpgrade::accept(self::handshake($headers), static function (): void {
            }, protocols: ['json']);

            self::assertSame(101, $response->getStatusCode());
            self::assertFalse($response->hasHeader('Sec-WebSocket-Protocol'));
        }
    }

    public function testPermessageDeflateIsAcceptedWhenOfferedUnlessTurnedOff(): void
    {
        $request = self::handshake(['Sec-WebSocket-Extensions' => 'permessage-deflate; client_max_window_bits']);
        $on = WebSocketUpgrade::accept($request, static function (): void {
        });
        $off = WebSocketUpgrade::accept($request, static function (): void {
        }, new WebSocketOptions(perMessageDeflate: false));

        self::assertSame('permessage-deflate; server_no_context_takeover; client_no_context_takeover', $on->getHeaderLine('Sec-WebSocket-Extensions'));
        self::assertFalse($off->hasHeader('Sec-WebSocket-Extensions'));
        self::assertNull(WebSocketUpgrade::take('id-1')[3] ?? null);
    }

    /** @param array<string, string> $headers */
    private static function handshake(array $headers): ServerRequestInterface
    {
        $request = ServerRequest::create('GET', 'http://example.test/ws')
            ->withHeader('Upgrade', 'websocket')
            ->withHeader('Connection', 'Upgrade')
            ->withHeader('Sec-WebSocket-Key', 'dGhlIHNhbXBsZSBub25jZQ==')
            ->withHeader('Sec-WebSocket-Version', '13')
            ->withAttribute(RequestIds::ATTRIBUTE, 'id-1');
        foreach ($headers as $name => $value) {
            $request = $request->withHeader($name, $value);
        }

        return $request;
    }
}
