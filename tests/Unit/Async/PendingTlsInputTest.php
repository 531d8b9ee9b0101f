<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\Async;
use Bobbin\Async\StreamWatcher;

/**
 * Decrypted bytes OpenSSL keeps after a short read leave the socket unreadable; a client that
 * waits on the descriptor alone (epoll) would wait forever. Async::hasPendingInput() sees them.
 */
final class PendingTlsInputTest extends AsyncTestCase
{
    /** @var resource */
    private mixed $client;

    /** @var resource */
    private mixed $server;

    /** The client's descriptor as a Socket, taken before TLS (PHP refuses it after). */
    private \Socket $clientSocket;

    protected function setUp(): void
    {
        parent::setUp();
        if (!\extension_loaded('openssl')) {
            self::markTestSkipped('openssl is not loaded');
        }
        [$this->client, $this->server, $this->clientSocket] = self::tlsPair();
    }

    protected function tearDown(): void
    {
        @\fclose($this->client);
        @\fclose($this->server);
        parent::tearDown();
    }

    public function testBytesOpenSslHoldsAfterAShortReadArePendingWhileTheSocketIsNotReadable(): void
    {
        \fwrite($this->server, \str_repeat('x', 1000));
        self::assertSame('xxxxxxxxxx', $this->readSome(10));

        $read = [$this->clientSocket];
        $write = $except = null;
        self::assertSame(0, \socket_select($read, $write, $except, 0), 'the socket itself has nothing left');
        self::assertTrue(Async::hasPendingInput($this->client));
        self::assertSame(990, \strlen((string) \fread($this->client, 65536)));
        self::assertFalse(Async::hasPendingInput($this->client));
    }

    public function testAWatcherToldThatTlsRunsReturnsForBytesOpenSslHolds(): void
    {
        \fwrite($this->server, \str_repeat('x', 1000));
        self::assertSame('xxxxxxxxxx', $this->readSome(10));
        $watcher = new StreamWatcher($this->client);
        $watcher->noteTlsStarted();

        // On epoll the descriptor stays quiet: without the check this wait times out.
        $watcher->awaitReadable(1.0);

        self::assertSame(990, \strlen((string) \fread($this->client, 65536)));
        $watcher->close();
    }

    public function testBytesStillOnTheSocketAreLeftToTheLoop(): void
    {
        self::assertFalse(Async::hasPendingInput($this->client));
        \fwrite($this->server, 'hello');
        $read = [$this->clientSocket];
        $write = $except = null;
        self::assertSame(1, \socket_select($read, $write, $except, 2));

        self::assertFalse(Async::hasPendingInput($this->client), 'an undecrypted record is the descriptor\'s to report');
    }

    private function readSome(int $length): string
    {
        $deadline = \microtime(true) + 5;
        do {
            $bytes = (string) \fread($this->client, $length);
            if ($bytes !== '') {
                return $bytes;
            }
            \usleep(1000);
        } while (\microtime(true) < $deadline);
        self::fail('nothing arrived');
    }

    /** @return array{resource, resource, \Socket} a connected client and server, TLS done on both, and the client's socket */
    private static function tlsPair(): array
    {
        $key = \openssl_pkey_new(['private_key_bits' => 2048, 'private_key_type' => \OPENSSL_KEYTYPE_RSA]);
        self::assertNotFalse($key);
        $csr = \openssl_csr_new(['commonName' => 'localhost'], $key);
        self::assertNotFalse($csr);
        $certificate = \openssl_csr_sign($csr, null, $key, 1);
        self::assertNotFalse($certificate);
        \openssl_x509_export($certificate, $certificatePem);
        \openssl_pkey_export($key, $keyPem);
        $pem = \tempnam(\sys_get_temp_dir(), 'bobbin-tls-');
        \file_put_contents($pem, $certificatePem . $keyPem);

        $listener = \stream_socket_server('tcp://127.0.0.1:0', $errno, $error, \STREAM_SERVER_BIND | \STREAM_SERVER_LISTEN, \stream_context_create([
            'ssl' => ['local_cert' => $pem, 'verify_peer' => false],
        ]));
        self::assertNotFalse($listener, $error);
        $client = \stream_socket_client('tcp://' . \stream_socket_get_name($listener, false), $errno, $error, 5, \STREAM_CLIENT_CONNECT, \stream_context_create([
            'ssl' => ['verify_peer' => false, 'verify_peer_name' => false, 'allow_self_signed' => true],
        ]));
        self::assertNotFalse($client, $error);
        $server = \stream_socket_accept($listener, 5);
        self::assertNotFalse($server);
        \fclose($listener);
        \stream_set_blocking($client, false);
        \stream_set_blocking($server, false);
        \stream_set_read_buffer($client, 0);
        $clientSocket = \socket_import_stream($client);
        self::assertInstanceOf(\Socket::class, $clientSocket);

        $clientDone = $serverDone = false;
        $deadline = \microtime(true) + 5;
        while (!($clientDone && $serverDone) && \microtime(true) < $deadline) {
            $clientDone = $clientDone || @\stream_socket_enable_crypto($client, true, \STREAM_CRYPTO_METHOD_TLS_CLIENT) === true;
            $serverDone = $serverDone || @\stream_socket_enable_crypto($server, true, \STREAM_CRYPTO_METHOD_TLS_SERVER) === true;
            \usleep(500);
        }
        \unlink($pem); // read by the server's handshake, not before
        self::assertTrue($clientDone && $serverDone, 'the TLS handshake did not finish');

        return [$client, $server, $clientSocket];
    }
}
