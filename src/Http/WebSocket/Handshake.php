<?php

declare(strict_types=1);

namespace Bobbin\Http\WebSocket;

use Psr\Http\Message\ServerRequestInterface;

/**
 * The opening handshake's rules (RFC 6455 §4.2), pure: what makes a request an upgrade, and the answer's key.
 *
 * @internal
 */
final class Handshake
{
    private const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

    private function __construct()
    {
    }

    /** Whether the request asks for a WebSocket at all (Upgrade: websocket). */
    public static function isRequested(ServerRequestInterface $request): bool
    {
        return \in_array('websocket', \array_map('trim', \explode(',', \strtolower($request->getHeaderLine('Upgrade')))), true);
    }

    /**
     * Why the request is not a valid opening handshake: [status, reason], or null when it is.
     *
     * @return array{int, string}|null
     */
    public static function refusal(ServerRequestInterface $request): ?array
    {
        if ($request->getMethod() !== 'GET' || $request->getProtocolVersion() !== '1.1') {
            return [400, 'a WebSocket opens with GET over HTTP/1.1'];
        }
        if (!self::isRequested($request)) {
            return [426, 'Upgrade: websocket is missing'];
        }
        $connection = \array_map('trim', \explode(',', \strtolower($request->getHeaderLine('Connection'))));
        if (!\in_array('upgrade', $connection, true)) {
            return [400, 'Connection: Upgrade is missing'];
        }
        if ($request->getHeaderLine('Sec-WebSocket-Version') !== '13') {
            return [426, 'only Sec-WebSocket-Version 13 is spoken'];
        }
        $key = $request->getHeaderLine('Sec-WebSocket-Key');
        $decoded = \base64_decode($key, true);
        if ($decoded === false || \strlen($decoded) !== 16) {
            return [400, 'Sec-WebSocket-Key must be 16 bytes in base64'];
        }

        return null;
    }

    /**
     * The first subprotocol the client lists (Sec-WebSocket-Protocol, in its order of
     * preference) that $supported holds; null when none does.
     *
     * @param list<string> $supported
     */
    public static function protocol(ServerRequestInterface $request, array $supported): ?string
    {
        if ($supported === []) {
            return null;
        }
        foreach (\explode(',', $request->getHeaderLine('Sec-WebSocket-Protocol')) as $offered) {
            $offered = \trim($offered);
            if ($offered !== '' && \in_array($offered, $supported, true)) {
                return $offered;
            }
        }

        return null;
    }

    /** Sec-WebSocket-Accept for a client's Sec-WebSocket-Key (§4.2.2). */
    public static function acceptKey(string $key): string
    {
        return \base64_encode(\sha1($key . self::GUID, true));
    }
}
