<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\WebSocket;

/**
 * A blocking WebSocket client written from RFC 6455 for the tests: it can send what a correct
 * client sends and what a broken one sends (unmasked frames, reserved bits and opcodes, bad
 * lengths), and reads the server's frames as they are on the wire.
 */
final class WebSocketClient
{
    /** @var resource */
    private $socket;
    private string $buffer = '';
    /** The server's 101 head, for its negotiated headers. */
    public readonly string $responseHead;
    /** The RSV bits of the last frame readFrame() returned (4: RSV1, a compressed message). */
    public int $lastRsv = 0;

    /** @param array<string, string> $headers more handshake headers (Sec-WebSocket-Extensions, -Protocol) */
    private function __construct(string $address, string $path, float $timeout, array $headers = [])
    {
        $socket = \stream_socket_client('tcp://' . $address, $errno, $error, $timeout);
        if ($socket === false) {
            throw new \RuntimeException("connect to $address: $error");
        }
        \stream_set_timeout($socket, (int) \ceil($timeout));
        $this->socket = $socket;
        $key = \base64_encode(\random_bytes(16));
        $this->write("GET $path HTTP/1.1\r\nHost: $address\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: $key\r\nSec-WebSocket-Version: 13\r\n" . \implode('', \array_map(static fn (string $name, string $value): string => "$name: $value\r\n", \array_keys($headers), $headers)) . "\r\n");
        while (!\str_contains($this->buffer, "\r\n\r\n")) {
            $this->fill();
        }
        [$head, $this->buffer] = \explode("\r\n\r\n", $this->buffer, 2);
        $expected = \base64_encode(\sha1($key . '258EAFA5-E914-47DA-95CA-C5AB0DC85B11', true));
        if (!\str_starts_with($head, 'HTTP/1.1 101 ') || \stripos($head, "Sec-WebSocket-Accept: $expected") === false) {
            throw new \RuntimeException("not upgraded:\n$head");
        }
        $this->responseHead = $head;
    }

    /** @param array<string, string> $headers more handshake headers (Sec-WebSocket-Extensions, -Protocol) */
    public static function connect(string $address, string $path = '/', float $timeout = 5.0, array $headers = []): self
    {
        return new self($address, $path, $timeout, $headers);
    }

    /** A response header of the handshake, or null. */
    public function responseHeader(string $name): ?string
    {
        return \preg_match('/^' . \preg_quote($name, '/') . ':[ \t]*(.*?)[ \t\r]*$/mi', $this->responseHead, $match) === 1 ? $match[1] : null;
    }

    /** A frame as a client sends it: masked unless told otherwise. */
    public function sendFrame(int $opcode, string $payload, bool $final = true, bool $masked = true, int $rsv = 0): void
    {
        $length = \strlen($payload);
        $head = \chr(($final ? 0x80 : 0) | ($rsv << 4) | $opcode);
        $maskBit = $masked ? 0x80 : 0;
        if ($length < 126) {
            $head .= \chr($maskBit | $length);
        } elseif ($length < 65536) {
            $head .= \chr($maskBit | 126) . \pack('n', $length);
        } else {
            $head .= \chr($maskBit | 127) . \pack('J', $length);
        }
        if ($masked) {
            $mask = \random_bytes(4);
            $payload = $length === 0 ? '' : $payload ^ \substr(\str_repeat($mask, ($length >> 2) + 1), 0, $length);
            $head .= $mask;
        }
        $this->write($head . $payload);
    }

    public function sendText(string $text): void
    {
        $this->sendFrame(0x1, $text);
    }

    /** @return array{int, string, bool}|null the next frame from the server: opcode, payload, final; null when the server closed the TCP connection */
    public function readFrame(): ?array
    {
        while (true) {
            if (\strlen($this->buffer) >= 2) {
                $first = \ord($this->buffer[0]);
                $second = \ord($this->buffer[1]);
                $length = $second & 0x7F;
                $offset = 2;
                if ($length === 126 && \strlen($this->buffer) >= 4) {
                    $length = \unpack('n', $this->buffer, 2)[1];
                    $offset = 4;
                } elseif ($length === 127 && \strlen($this->buffer) >= 10) {
                    $length = \unpack('J', $this->buffer, 2)[1];
                    $offset = 10;
                }
                if (($second & 0x80) !== 0) {
                    throw new \RuntimeException('the server masked a frame');
                }
                if ($length < 126 || $offset > 2) {
                    if (\strlen($this->buffer) >= $offset + $length) {
                        $payload = \substr($this->buffer, $offset, $length);
                        $this->buffer = \substr($this->buffer, $offset + $length);
                        $this->lastRsv = ($first >> 4) & 0x7;

                        return [$first & 0x0F, $payload, ($first & 0x80) !== 0];
                    }
                }
            }
            if (!$this->fill()) {
                return null;
            }
        }
    }

    /** @return array{int, string}|null the close frame's code and reason, reading past other frames; null when the connection ended without one */
    public function readClose(): ?array
    {
        while (($frame = $this->readFrame()) !== null) {
            if ($frame[0] === 0x8) {
                return $frame[1] === '' ? [1005, ''] : [\unpack('n', $frame[1])[1], \substr($frame[1], 2)];
            }
        }

        return null;
    }

    /** Whether the server closed the TCP connection (after its close frame). */
    public function isClosedByServer(): bool
    {
        return $this->readFrame() === null;
    }

    public function writeRaw(string $bytes): void
    {
        $this->write($bytes);
    }

    public function close(): void
    {
        \fclose($this->socket);
    }

    private function write(string $bytes): void
    {
        while ($bytes !== '') {
            $written = @\fwrite($this->socket, $bytes);
            if ($written === false || $written === 0) {
                throw new \RuntimeException('the server closed the connection');
            }
            $bytes = \substr($bytes, $written);
        }
    }

    private function fill(): bool
    {
        $data = @\fread($this->socket, 65536);
        if ($data === false || $data === '') {
            if (\stream_get_meta_data($this->socket)['timed_out']) {
                throw new \RuntimeException('timed out waiting for the server');
            }

            return false;
        }
        $this->buffer .= $data;

        return true;
    }
}
