<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\TestCase;

/**
 * --tls-cert/--tls-key: HTTPS on the server's own listener, checked with curl (OpenSSL's
 * client, nobody's here) and PHP's own TLS client.
 */
final class TlsTerminationTest extends TestCase
{
    private static string $directory = '';
    private static ?MasterProcess $server = null;

    public static function setUpBeforeClass(): void
    {
        self::$directory = \sys_get_temp_dir() . '/bobbin-tls-test-' . \getmypid() . '-' . \bin2hex(\random_bytes(3));
        \mkdir(self::$directory);
        self::makeCertificate('first');
        self::$server = MasterProcess::start(self::appFile(), ['--workers=1', '--tls-cert=' . self::$directory . '/cert.pem', '--tls-key=' . self::$directory . '/key.pem', '--header-timeout=2']);
    }

    public static function tearDownAfterClass(): void
    {
        self::$server?->kill();
        self::$server = null;
        \exec('rm -rf ' . \escapeshellarg(self::$directory));
    }

    public function testCurlGetsTheResponseOverHttpsAndTheApplicationSeesTheHttpsScheme(): void
    {
        [$status, $body] = self::curl('/?n=20');

        self::assertSame(200, $status);
        self::assertSame('https on|abcdefghijabcdefghij', $body);
    }

    public function testALargeBodyArrivesWhole(): void
    {
        [$status, $body] = self::curl('/?n=4000000');

        // curl's own error (merged into the output) and the server's log, should it cut the body.
        self::assertSame(200, $status, \substr($body, -300) . "\n" . self::$server?->log());
        self::assertSame(\md5('https on|' . \str_repeat('abcdefghij', 400000)), \md5($body));
    }

    public function testRequestsOnOneConnectionReuseItsTlsSession(): void
    {
        $output = (string) \shell_exec(\sprintf(
            'curl -sS --cacert %s %s %s -o /dev/null -o /dev/null -w "%%{http_code} %%{num_connects}\n" 2>&1',
            \escapeshellarg(self::$directory . '/cert.pem'),
            \escapeshellarg(self::url('/a')),
            \escapeshellarg(self::url('/b')),
        ));

        self::assertSame("200 1\n200 0\n", $output, 'the second request went over the first connection');
    }

    public function testAlpnSelectsHttp11WhenTheClientOffersH2AndHttp11(): void
    {
        $output = (string) \shell_exec(\sprintf('curl -sv --http2 --cacert %s %s -o /dev/null 2>&1', \escapeshellarg(self::$directory . '/cert.pem'), \escapeshellarg(self::url('/'))));

        self::assertMatchesRegularExpression('/ALPN: server accepted http\/1\.1/', $output);
        self::assertMatchesRegularExpression('/< HTTP\/1\.1 200/', $output);
    }

    public function testTlsOlderThan12IsRefused(): void
    {
        \exec(\sprintf('curl -sS --tlsv1.1 --tls-max 1.1 --cacert %s %s -o /dev/null 2>&1', \escapeshellarg(self::$directory . '/cert.pem'), \escapeshellarg(self::url('/'))), $output, $status);

        self::assertNotSame(0, $status, \implode("\n", $output));
        self::assertSame([200, 'https on|'], self::curl('/'), 'the server goes on');
    }

    public function testPlainHttpToTheHttpsPortGets400AndTheServerGoesOn(): void
    {
        $socket = \stream_socket_client('tcp://' . self::$server?->address, $errno, $error, 5);
        self::assertIsResource($socket);
        \fwrite($socket, "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n");
        \stream_set_timeout($socket, 5);
        $answer = (string) \stream_get_contents($socket);

        self::assertStringStartsWith("HTTP/1.1 400 Bad Request\r\n", $answer);
        self::assertStringContainsString('speaks HTTPS', $answer);
        self::assertSame([200, 'https on|'], self::curl('/'));
    }

    public function testGarbageAndTruncatedHandshakesCostTheServerNothing(): void
    {
        $hello = "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" . \random_bytes(40);
        foreach (["\x16\x03\x01\x00\x05garbage", $hello, "\x16"] as $bytes) {
            $socket = \stream_socket_client('tcp://' . self::$server?->address, $errno, $error, 5);
            self::assertIsResource($socket);
            \fwrite($socket, $bytes);
            \fclose($socket);
        }

        self::assertSame([200, 'https on|'], self::curl('/'));
    }

    public function testAFloodOfAThousandStalledHandshakesDoesNotStarveAnEstablishedClient(): void
    {
        $context = \stream_context_create(['ssl' => ['cafile' => self::$directory . '/cert.pem', 'peer_name' => 'localhost']]);
        $established = \stream_socket_client('tls://127.0.0.1:' . self::$server?->port(), $errno, $error, 5, \STREAM_CLIENT_CONNECT, $context);
        self::assertIsResource($established, $error);
        self::assertSame('https on|', self::requestOn($established));

        $stalled = [];
        for ($i = 0; $i < 1000; $i++) {
            $socket = @\stream_socket_client('tcp://' . self::$server?->address, $errno, $error, 5);
            if ($socket !== false) {
                \fwrite($socket, "\x16\x03\x01\x02\x00\x01"); // a ClientHello that never ends
                $stalled[] = $socket;
            }
        }
        self::assertCount(1000, $stalled);
        $slowest = 0.0;
        for ($i = 0; $i < 20; $i++) {
            $started = \microtime(true);
            self::assertSame('https on|', self::requestOn($established));
            $slowest = \max($slowest, \microtime(true) - $started);
            \usleep(20_000);
        }
        $started = \microtime(true);
        [$status] = self::curl('/');
        $fresh = \microtime(true) - $started;
        foreach ($stalled as $socket) {
            \fclose($socket);
        }

        self::assertSame(200, $status);
        // Each stalled handshake costs the worker one fiber and one attempt (PHP builds an OpenSSL
        // context per connection); between them the established client's requests are served.
        self::assertLessThan(0.5, $slowest, 'a request on the established connection');
        self::assertLessThan(10.0, $fresh, 'a fresh client, queued behind the thousand');
    }

    /** @param resource $socket a keep-alive HTTPS connection */
    private static function requestOn($socket): string
    {
        \fwrite($socket, "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n");
        \stream_set_timeout($socket, 5);
        $head = '';
        while (!\str_contains($head, "\r\n\r\n") && ($line = \fgets($socket)) !== false) {
            $head .= $line;
        }
        \preg_match('/Content-Length: (\d+)/i', $head, $length);

        return (string) \fread($socket, (int) ($length[1] ?? 0));
    }

    public function testAReloadServesTheRenewedCertificate(): void
    {
        $before = self::servedCommonName();
        self::assertSame('first', $before);
        self::makeCertificate('renewed');

        self::$server?->signal(\SIGHUP);
        self::$server?->waitForLog('/Reload complete/', 15.0);

        self::assertSame('renewed', self::servedCommonName());
        self::assertSame(200, self::curl('/')[0]);
    }

    public function testAKeyThatDoesNotBelongToTheCertificateStopsTheStartWithOneClearLine(): void
    {
        $other = self::$directory . '/other';
        \mkdir($other);
        \exec(\sprintf('openssl genrsa -out %s 2048 2>/dev/null', \escapeshellarg($other . '/key.pem')));
        $failed = MasterProcess::startExpectingFailure(self::appFile(), ['--workers=1', '--tls-cert=' . self::$directory . '/cert.pem', '--tls-key=' . $other . '/key.pem']);

        self::assertNotSame(0, $failed->wait(20.0));
        self::assertStringContainsString('does not belong to the certificate', $failed->log());
    }

    private static function appFile(): string
    {
        return \dirname(__DIR__, 2) . '/Support/Http/tls-app.php';
    }

    /** A self-signed certificate for localhost whose common name says which one it is. */
    private static function makeCertificate(string $name): void
    {
        \exec(\sprintf(
            'openssl req -x509 -newkey rsa:2048 -nodes -keyout %s -out %s -days 2 -subj %s -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2>&1',
            \escapeshellarg(self::$directory . '/key.pem.new'),
            \escapeshellarg(self::$directory . '/cert.pem.new'),
            \escapeshellarg('/CN=' . $name),
        ), $output, $status);
        self::assertSame(0, $status, \implode("\n", $output));
        \rename(self::$directory . '/key.pem.new', self::$directory . '/key.pem');
        \rename(self::$directory . '/cert.pem.new', self::$directory . '/cert.pem');
    }

    private static function url(string $path): string
    {
        return 'https://localhost:' . self::$server?->port() . $path;
    }

    /** @return array{int, string} */
    private static function curl(string $path): array
    {
        $body = (string) \shell_exec(\sprintf('curl -sS --cacert %s %s -w "\n%%{http_code}" 2>&1', \escapeshellarg(self::$directory . '/cert.pem'), \escapeshellarg(self::url($path))));
        $end = (int) \strrpos($body, "\n");

        return [(int) \substr($body, $end + 1), \substr($body, 0, $end)];
    }

    /** The common name of the certificate a fresh connection is served, read by PHP's own TLS client. */
    private static function servedCommonName(): string
    {
        $context = \stream_context_create(['ssl' => ['capture_peer_cert' => true, 'verify_peer' => false, 'verify_peer_name' => false]]);
        $socket = \stream_socket_client('tls://127.0.0.1:' . self::$server?->port(), $errno, $error, 5, \STREAM_CLIENT_CONNECT, $context);
        self::assertIsResource($socket, $error);
        $certificate = \stream_context_get_params($socket)['options']['ssl']['peer_certificate'] ?? null;
        \fclose($socket);
        $parsed = $certificate === null ? false : \openssl_x509_parse($certificate);

        return \is_array($parsed) ? (string) ($parsed['subject']['CN'] ?? '') : '';
    }
}
