<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Tests\Support\Process\MasterProcess;
use Bobbin\Tests\Support\WebSocket\WebSocketClient;
use PHPUnit\Framework\TestCase;

/**
 * WebSockets (RFC 6455) through bin/bobbin serve: examples/websocket/echo.php walked through the
 * RFC's cases with a client written from the RFC (tests/Support/WebSocket), Node's `ws` for
 * interoperability, and examples/websocket/chat.php's broadcast.
 */
final class WebSocketTest extends TestCase
{
    private static ?MasterProcess $echo = null;

    public static function setUpBeforeClass(): void
    {
        self::$echo = MasterProcess::start(\dirname(__DIR__, 3) . '/examples/websocket/echo.php', ['--workers=1']);
    }

    public static function tearDownAfterClass(): void
    {
        self::$echo?->kill();
        self::$echo = null;
    }

    public function testTextAndBinaryMessagesComeBackAsTheyWereSent(): void
    {
        $client = $this->client();
        $client->sendText('Hello');
        $client->sendFrame(0x2, "\x00\xff\x10");
        $client->sendText(\str_repeat('é', 30000)); // 60,000 bytes: a 16-bit length

        self::assertSame([0x1, 'Hello', true], $client->readFrame());
        self::assertSame([0x2, "\x00\xff\x10", true], $client->readFrame());
        self::assertSame([0x1, \str_repeat('é', 30000), true], $client->readFrame());
    }

    public function testAFragmentedMessageWithAPingBetweenItsFragmentsIsPongedThenEchoedWhole(): void
    {
        $client = $this->client();
        $client->sendFrame(0x1, 'frag', false);
        $client->sendFrame(0x9, 'ping!');
        $client->sendFrame(0x0, 'men', false);
        $client->sendFrame(0x0, 'ted');

        self::assertSame([0xA, 'ping!', true], $client->readFrame());
        self::assertSame([0x1, 'fragmented', true], $client->readFrame());
    }

    public function testTheClientsCloseIsEchoedAndTheServerClosesTheConnection(): void
    {
        $client = $this->client();
        $client->sendFrame(0x8, \pack('n', 1000) . 'bye');

        self::assertSame([1000, ''], $client->readClose());
        self::assertTrue($client->isClosedByServer());
    }

    public function testTheApplicationClosesWithItsOwnCodeAndReason(): void
    {
        $client = $this->client();
        $client->sendText('close please');

        self::assertSame([4000, 'as asked'], $client->readClose());
        $client->sendFrame(0x8, \pack('n', 4000));
        self::assertTrue($client->isClosedByServer());
    }

    /** @return iterable<string, array{\Closure(WebSocketClient): void, int}> */
    public static function brokenClients(): iterable
    {
        yield 'an unmasked frame' => [static fn (WebSocketClient $c) => $c->sendFrame(0x1, 'hi', masked: false), 1002];
        yield 'a reserved bit' => [static fn (WebSocketClient $c) => $c->sendFrame(0x1, 'hi', rsv: 4), 1002];
        yield 'reserved opcode 0x3' => [static fn (WebSocketClient $c) => $c->sendFrame(0x3, 'hi'), 1002];
        yield 'a ping of 126 bytes' => [static fn (WebSocketClient $c) => $c->sendFrame(0x9, \str_repeat('a', 126)), 1002];
        yield 'a continuation out of nowhere' => [static fn (WebSocketClient $c) => $c->sendFrame(0x0, 'hi'), 1002];
        yield 'invalid UTF-8 in a text message' => [static fn (WebSocketClient $c) => $c->sendFrame(0x1, "caf\xc3"), 1007];
        yield 'a message over the limit' => [static fn (WebSocketClient $c) => $c->sendFrame(0x2, \str_repeat('a', 70000)), 1009];
        yield 'a close frame of one byte' => [static fn (WebSocketClient $c) => $c->sendFrame(0x8, "\x03"), 1002];
        yield 'close code 1005, which no endpoint may send' => [static fn (WebSocketClient $c) => $c->sendFrame(0x8, \pack('n', 1005)), 1002];
    }

    /**
     * @param \Closure(WebSocketClient): void $misbehave
     */
    #[\PHPUnit\Framework\Attributes\DataProvider('brokenClients')]
    public function testAClientThatBreaksTheProtocolIsClosedWithTheRightCodeAndTheServerGoesOn(\Closure $misbehave, int $code): void
    {
        $client = $this->client();
        $misbehave($client);

        self::assertSame($code, $client->readClose()[0] ?? null);
        self::assertTrue($client->isClosedByServer());
        $next = $this->client();
        $next->sendText('still here');
        self::assertSame([0x1, 'still here', true], $next->readFrame());
    }

    public function testAnInvalidHandshakeGetsItsStatusAndPlainRequestsAreServed(): void
    {
        $address = self::$echo?->address;
        $answer = (string) \shell_exec(\sprintf('curl -sS -i -H "Upgrade: websocket" -H "Connection: Upgrade" -H "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==" -H "Sec-WebSocket-Version: 8" http://%s/ 2>&1', $address));

        self::assertStringStartsWith('HTTP/1.1 426', $answer);
        self::assertStringContainsString('Sec-WebSocket-Version: 13', $answer);
        self::assertSame("a WebSocket echo\n", (string) \shell_exec(\sprintf('curl -sS http://%s/', $address)));
    }

    /** @return iterable<string, array{string, string}> */
    public static function wsOffers(): iterable
    {
        yield 'with permessage-deflate, as ws offers by default' => ['', 'permessage-deflate; server_no_context_takeover; client_no_context_takeover'];
        yield 'without extensions' => ['plain', ''];
    }

    #[\PHPUnit\Framework\Attributes\DataProvider('wsOffers')]
    public function testNodesWsClientTalksToTheServer(string $mode, string $extensions): void
    {
        if (!\is_dir('/usr/share/nodejs/ws') || \trim((string) \shell_exec('command -v node')) === '') {
            self::markTestSkipped('node and Debian\'s node-ws are not installed (scripts/install-deps installs them)');
        }
        $output = (string) \shell_exec(\sprintf('NODE_PATH=/usr/share/nodejs node %s ws://%s/ %s 2>&1', \escapeshellarg(\dirname(__DIR__, 2) . '/Support/WebSocket/ws-client.js'), self::$echo?->address, $mode));
        $seen = \json_decode(\trim($output), true);

        self::assertIsArray($seen, $output);
        self::assertSame($extensions, $seen['extensions'] ?? null, $output);
        self::assertSame(['text:hello from ws', 'binary:000102ff', 'text:60000 chars'], $seen['messages'] ?? null, $output);
        self::assertTrue($seen['pong'] ?? false, 'the ping was answered with its payload');
        self::assertSame([1000, ''], $seen['close'] ?? null);
    }

    public function testCompressedMessagesAreInflatedAndLongAnswersCompressedUnderPermessageDeflate(): void
    {
        $client = WebSocketClient::connect((string) self::$echo?->address, '/', 5.0, ['Sec-WebSocket-Extensions' => 'permessage-deflate; client_max_window_bits']);
        self::assertSame('permessage-deflate; server_no_context_takeover; client_no_context_takeover', $client->responseHeader('Sec-WebSocket-Extensions'));

        $client->sendFrame(0x1, "\xf2\x48\xcd\xc9\xc9\x07\x00", rsv: 4); // RFC 7692 §7.2.3.1's "Hello"
        self::assertSame([0x1, 'Hello', true], $client->readFrame());
        self::assertSame(0, $client->lastRsv, 'a short answer goes uncompressed');

        $text = \str_repeat('compressible ', 1000);
        $compressed = \substr((string) \deflate_add(\deflate_init(\ZLIB_ENCODING_RAW) ?: self::fail(), $text, \ZLIB_SYNC_FLUSH), 0, -4);
        $client->sendFrame(0x1, \substr($compressed, 0, 10), false, rsv: 4);
        $client->sendFrame(0x0, \substr($compressed, 10));
        [$opcode, $payload] = $client->readFrame() ?? self::fail('no answer');
        self::assertSame(0x1, $opcode);
        self::assertSame(4, $client->lastRsv, 'a long answer goes compressed');
        self::assertLessThan(200, \strlen($payload));
        self::assertSame($text, \inflate_add(\inflate_init(\ZLIB_ENCODING_RAW) ?: self::fail(), $payload . "\x00\x00\xff\xff"));

        $client->sendText('plain still works');
        self::assertSame([0x1, 'plain still works', true], $client->readFrame());
    }

    public function testADeflateBombIsClosedWith1009(): void
    {
        $client = WebSocketClient::connect((string) self::$echo?->address, '/', 5.0, ['Sec-WebSocket-Extensions' => 'permessage-deflate']);
        $bomb = \substr((string) \deflate_add(\deflate_init(\ZLIB_ENCODING_RAW) ?: self::fail(), \str_repeat('a', 50 << 20), \ZLIB_SYNC_FLUSH), 0, -4);
        $client->sendFrame(0x2, $bomb, rsv: 4);

        self::assertSame(1009, $client->readClose()[0] ?? null);
    }

    public function testWithoutTheOfferNoExtensionIsAnsweredAndRsv1IsAProtocolError(): void
    {
        $client = $this->client();
        self::assertNull($client->responseHeader('Sec-WebSocket-Extensions'));
        $client->sendFrame(0x1, "\xf2\x48\xcd\xc9\xc9\x07\x00", rsv: 4);

        self::assertSame(1002, $client->readClose()[0] ?? null);
    }

    public function testTheChatBroadcastsEveryMessageToEveryMember(): void
    {
        $chat = MasterProcess::start(\dirname(__DIR__, 3) . '/examples/websocket/chat.php', ['--workers=1']);
        try {
            $members = [];
            for ($i = 0; $i < 50; $i++) {
                $members[] = WebSocketClient::connect($chat->address, '/chat');
            }
            self::assertSame("50 connected\n", (string) \shell_exec(\sprintf('curl -sS http://%s/', $chat->address)));
            foreach ([0, 17, 49] as $speaker) {
                $members[$speaker]->sendText("hi from $speaker");
            }
            foreach ($members as $index => $member) {
                $heard = [];
                for ($n = 0; $n < 3; $n++) {
                    $heard[] = $member->readFrame()[1] ?? null;
                }
                \sort($heard);
                self::assertSame(['hi from 0', 'hi from 17', 'hi from 49'], $heard, "member $index");
            }
            foreach ($members as $member) {
                $member->close();
            }
        } finally {
            $chat->kill();
        }
    }

    public function testAGracefulStopClosesOpenWebSocketsWithGoingAwayWellBeforeTheDrainDeadline(): void
    {
        $server = MasterProcess::start(\dirname(__DIR__, 3) . '/examples/websocket/echo.php', ['--workers=1', '--drain-timeout=20']);
        try {
            $client = WebSocketClient::connect($server->address);
            $silent = WebSocketClient::connect($server->address); // never answers the close: cut after the close timeout (2 s)
            $client->sendText('before the stop');
            self::assertSame([0x1, 'before the stop', true], $client->readFrame());
            $started = \microtime(true);
            $server->signal(\SIGTERM);

            self::assertSame([1001, ''], $client->readClose());
            $client->sendFrame(0x8, \pack('n', 1001));
            self::assertTrue($client->isClosedByServer());
            self::assertSame([1001, ''], $silent->readClose());
            self::assertTrue($silent->isClosedByServer());
            self::assertSame(0, $server->wait(10.0));
            self::assertLessThan(5.0, \microtime(true) - $started, 'the server waited for the drain deadline');
        } finally {
            $server->kill();
        }
    }

    public function testAWorkerAtItsConnectionLimitDoesNotCloseQuietWebSocketsAsSlowClients(): void
    {
        // A chat member that says nothing for a while is not a slowloris: at the limit (of
        // connections, or of memory past 75% of memory_limit) a new client waits instead.
        $chat = MasterProcess::start(\dirname(__DIR__, 3) . '/examples/websocket/chat.php', ['--workers=1', '--max-connections=3']);
        try {
            $members = [];
            for ($i = 0; $i < 3; $i++) {
                $members[] = WebSocketClient::connect($chat->address, '/chat');
            }
            \usleep(1200000); // past the second after which a connection's data rate is judged
            $newcomer = \stream_socket_client('tcp://' . $chat->address, $code, $message, 2.0);
            self::assertIsResource($newcomer);
            \fwrite($newcomer, "GET / HTTP/1.1\r\nHost: a\r\n\r\n");
            \usleep(300000);

            $members[2]->sendText('still here?');
            foreach ($members as $index => $member) {
                self::assertSame([0x1, 'still here?', true], $member->readFrame(), "member $index was closed to make room");
            }
            self::assertStringNotContainsString('closed to make room', $chat->log());
            \fclose($newcomer);
        } finally {
            $chat->kill();
        }
    }

    private function client(): WebSocketClient
    {
        return WebSocketClient::connect((string) self::$echo?->address);
    }
}
