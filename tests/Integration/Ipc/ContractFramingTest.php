<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Ipc;

use Bobbin\Tests\Support\Ipc\ByteFrequency;
use Bobbin\Tests\Support\Ipc\DaemonTestCase;
use PHPUnit\Framework\Attributes\DataProvider;

/**
 * The daemon driven the way /work/shared/contracts/entry-points.md describes it, on a raw socket
 * and without the project's client: a request is `u32 LE length S` + S bytes, the answer one frame
 * of max(1, floor(S/8)) bytes. Outside tools rely on exactly this.
 */
final class ContractFramingTest extends DaemonTestCase
{
    private const SIZES = [0, 1, 7, 8, 9, 128, 2048, 100_000];

    /** @return array<string, array{string}> */
    public static function sockets(): array
    {
        return ['unix socket' => ['unix'], 'tcp' => ['tcp']];
    }

    #[DataProvider('sockets')]
    public function testEachRequestFrameOfSBytesGetsOneFrameOfMaxOneOrSOverEightBytes(string $socket): void
    {
        $stream = $this->connect($socket);
        foreach (self::SIZES as $size) {
            $payload = self::payload($size);
            $this->write($stream, \pack('V', $size) . $payload);
            $answer = $this->readFrame($stream);
            self::assertSame(\max(1, \intdiv($size, 8)), \strlen($answer), "S=$size: answer length");
            self::assertSame(ByteFrequency::expected($payload), $answer, "S=$size: answer bytes");
        }
        \fclose($stream);
    }

    #[DataProvider('sockets')]
    public function testPipelinedFramesOnOneConnectionAreAnsweredInOrder(string $socket): void
    {
        $stream = $this->connect($socket);
        // Every size, then every size again in reverse: a mixed-up order cannot pass.
        $sizes = [...self::SIZES, ...\array_reverse(self::SIZES)];
        $wire = '';
        $payloads = [];
        foreach ($sizes as $i => $size) {
            $payloads[$i] = self::payload($size, $i);
            $wire .= \pack('V', $size) . $payloads[$i];
        }
        $this->write($stream, $wire);
        foreach ($sizes as $i => $size) {
            $answer = $this->readFrame($stream);
            self::assertSame(\max(1, \intdiv($size, 8)), \strlen($answer), "frame $i (S=$size): answer length");
            self::assertSame(ByteFrequency::expected($payloads[$i]), $answer, "frame $i (S=$size): answer bytes");
        }
        \fclose($stream);
    }

    public function testAControlFrameOverTcpDisconnectsTheClientAndIsLogged(): void
    {
        $stream = $this->connect('tcp');
        $this->write($stream, \pack('VCV', 0x80000000 | 5, 1, 0)); // SHM_OPEN
        self::assertSame('', \stream_get_contents($stream), 'the daemon closes the connection without a reply');
        \fclose($stream);
        self::assertStringContainsString('control frame over TCP', $this->daemon->log());
        self::assertTrue($this->daemon->isRunning());
    }

    /** Bytes that differ per size and position, so the frequency answers differ too. */
    private static function payload(int $size, int $salt = 0): string
    {
        $bytes = '';
        for ($i = 0; $i < $size; $i++) {
            $bytes .= \chr((($i * 131) ^ ($i >> 5) ^ ($salt * 7)) & 0xFF);
        }

        return $bytes;
    }

    /** @return resource */
    private function connect(string $socket)
    {
        $uri = $socket === 'tcp' ? "tcp://127.0.0.1:{$this->daemon->tcpPort}" : "unix://{$this->daemon->socketPath}";
        $stream = \stream_socket_client($uri, $errno, $errstr, 5.0);
        self::assertIsResource($stream, "connect to $uri: $errstr");
        \stream_set_timeout($stream, 5); // a wrong length must fail the test, not hang it

        return $stream;
    }

    /** @param resource $stream */
    private function write($stream, string $bytes): void
    {
        $done = 0;
        while ($done < \strlen($bytes)) {
            $n = \fwrite($stream, \substr($bytes, $done));
            self::assertIsInt($n);
            self::assertGreaterThan(0, $n, 'write made progress');
            $done += $n;
        }
    }

    /** @param resource $stream */
    private function readFrame($stream): string
    {
        $header = $this->readExactly($stream, 4);
        $length = \unpack('V', $header)[1] ?? -1;
        self::assertLessThan(0x80000000, $length, 'a request is answered by a plain frame');

        return $this->readExactly($stream, $length);
    }

    /** @param resource $stream */
    private function readExactly($stream, int $length): string
    {
        $data = '';
        while (\strlen($data) < $length) {
            $missing = $length - \strlen($data);
            \assert($missing > 0); // the loop condition
            $chunk = \fread($stream, $missing);
            if ($chunk === false || $chunk === '') {
                self::fail(\sprintf('Expected %d bytes, got %d before %s', $length, \strlen($data), \feof($stream) ? 'EOF' : 'the timeout'));
            }
            $data .= $chunk;
        }

        return $data;
    }
}
