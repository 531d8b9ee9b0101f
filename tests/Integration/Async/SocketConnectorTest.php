<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Async;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\ClientTls;
use Bobbin\Async\ConnectFailedException;
use Bobbin\Async\ConnectTarget;
use Bobbin\Async\Future;
use Bobbin\Async\SocketConnector;
use Bobbin\Async\TimeoutException;
use Bobbin\Async\TlsHandshakeException;
use Bobbin\Tests\Support\Tls\TestCertificates;
use Bobbin\Tests\Unit\Async\AsyncTestCase;

/**
 * The one outgoing connect (Bobbin\Async\SocketConnector) against real sockets: listeners of this
 * process, a port nobody listens on, a listener whose accept queue is full (its connects hang,
 * as towards a host that drops packets), and TLS servers with the test certificates.
 */
final class SocketConnectorTest extends AsyncTestCase
{
    /** @var list<resource> */
    private array $open = [];
    private ?string $socketPath = null;

    protected function setUp(): void
    {
        parent::setUp();
        // The loop opens its own descriptors (epoll's) on its first wait: before any count.
        [$reader, $writer] = $this->socketPair();
        Async::awaitWritable($writer, 1.0);
        \fclose($reader);
        \fclose($writer);
    }

    protected function tearDown(): void
    {
        foreach ($this->open as $stream) {
            if (\is_resource($stream)) {
                \fclose($stream);
            }
        }
        if ($this->socketPath !== null) {
            @\unlink($this->socketPath);
        }
        parent::tearDown();
    }

    public function testItConnectsToAListeningPortWithNoDelayAndKeepAliveOn(): void
    {
        $listener = $this->listener('tcp://127.0.0.1:0');
        $address = (string) \stream_socket_get_name($listener, false);

        $stream = $this->keep((new SocketConnector())->connect(self::tcp($address), \microtime(true) + 5));

        self::assertSame($address, \stream_socket_get_name($stream, true));
        self::assertFalse(\stream_get_meta_data($stream)['blocked'], 'the stream is non-blocking');
        $socket = \socket_import_stream($stream);
        self::assertInstanceOf(\Socket::class, $socket);
        self::assertSame(1, \socket_get_option($socket, \SOL_SOCKET, \SO_KEEPALIVE));
        self::assertNotSame(0, \socket_get_option($socket, \SOL_TCP, \TCP_NODELAY));
    }

    public function testKeepAliveCanBeLeftOff(): void
    {
        $listener = $this->listener('tcp://127.0.0.1:0');

        $stream = $this->keep((new SocketConnector(keepAlive: false))->connect(self::tcp((string) \stream_socket_get_name($listener, false)), \microtime(true) + 5));

        $socket = \socket_import_stream($stream);
        self::assertInstanceOf(\Socket::class, $socket);
        self::assertSame(0, \socket_get_option($socket, \SOL_SOCKET, \SO_KEEPALIVE));
    }

    public function testARefusedPortFailsWithTheSystemsReasonAndLeavesNoDescriptor(): void
    {
        $listener = $this->listener('tcp://127.0.0.1:0');
        $address = (string) \stream_socket_get_name($listener, false);
        \fclose($listener);
        $before = self::openDescriptors();

        try {
            (new SocketConnector())->connect(self::tcp($address), \microtime(true) + 5);
            self::fail('Nobody listens: the connect should fail');
        } catch (ConnectFailedException $e) {
            self::assertSame('Connection refused', $e->getMessage());
            self::assertSame(111, $e->errno);
        }
        self::assertSame($before, self::openDescriptors());
    }

    public function testAConnectThatHangsPastTheDeadlineTimesOutAndClosesItsSocket(): void
    {
        $address = $this->listenerWithAFullAcceptQueue();
        $before = self::openDescriptors();

        $started = \microtime(true);
        try {
            (new SocketConnector())->connect(self::tcp($address), \microtime(true) + 0.1);
            self::fail('The connect cannot finish: it should time out');
        } catch (TimeoutException) {
        }

        self::assertEqualsWithDelta(0.1, \microtime(true) - $started, 0.5);
        self::assertSame($before, self::openDescriptors());
    }

    public function testCancellingAConnectMidWayClosesItsSocket(): void
    {
        $address = $this->listenerWithAFullAcceptQueue();
        $before = self::openDescriptors();
        $source = new CancellationSource();

        $connect = Async::run(static fn () => (new SocketConnector())->connect(self::tcp($address), \INF, $source->token()));
        Async::delay(0.05);
        self::assertFalse($connect->isComplete(), 'the connect still waits for the server');
        self::assertSame($before + 1, self::openDescriptors(), 'its socket is open meanwhile');
        $source->cancel();

        try {
            $connect->await();
            self::fail('The connect was cancelled');
        } catch (CancelledException $e) {
            self::assertNotInstanceOf(TimeoutException::class, $e);
        }
        self::assertSame($before, self::openDescriptors());
    }

    public function testACancellationAlreadyRequestedOpensNothing(): void
    {
        $listener = $this->listener('tcp://127.0.0.1:0');
        $source = new CancellationSource();
        $source->cancel();
        $before = self::openDescriptors();

        $this->expectException(CancelledException::class);
        try {
            (new SocketConnector())->connect(self::tcp((string) \stream_socket_get_name($listener, false)), \INF, $source->token());
        } finally {
            self::assertSame($before, self::openDescriptors());
        }
    }

    public function testItConnectsToAUnixSocket(): void
    {
        $listener = $this->listener('unix://' . $this->socketPath());

        $stream = $this->keep((new SocketConnector())->connect(ConnectTarget::unix($this->socketPath()), \microtime(true) + 5));

        $accepted = $this->keep(\stream_socket_accept($listener, 5));
        \fwrite($stream, 'ping');
        self::assertSame('ping', \fread($accepted, 4));
    }

    public function testAUnixPathWithNoSocketFailsAtOnce(): void
    {
        $this->expectException(ConnectFailedException::class);
        $this->expectExceptionMessage('No such file or directory');

        (new SocketConnector())->connect(ConnectTarget::unix($this->socketPath()), \microtime(true) + 5);
    }

    public function testAUnixSocketWithAFullAcceptQueueIsWaitedForUntilTheDeadline(): void
    {
        $path = $this->socketPath();
        $this->listener('unix://' . $path, backlog: 0);
        $connector = new SocketConnector();
        // Fill the queue: the kernel refuses the next ones at once (EAGAIN).
        $this->keep($connector->connect(ConnectTarget::unix($path), \microtime(true) + 5));
        $before = self::openDescriptors();

        $started = \microtime(true);
        try {
            $connector->connect(ConnectTarget::unix($path), \microtime(true) + 0.1);
            self::fail('The queue stays full: the connect should time out');
        } catch (TimeoutException $e) {
            self::assertStringContainsString('accept queue', $e->getMessage());
        }
        self::assertGreaterThanOrEqual(0.09, \microtime(true) - $started, 'it waited for the queue');
        self::assertSame($before, self::openDescriptors());
    }

    public function testTlsVerifiesByDefaultAndRefusesASelfSignedCertificate(): void
    {
        [$address, $server] = $this->tlsServer(TestCertificates::SELF_SIGNED);
        $before = self::openDescriptors();

        try {
            (new SocketConnector())->connect(self::tcp($address), \microtime(true) + 5, null, new ClientTls('localhost'));
            self::fail('A self-signed certificate must not pass the check');
        } catch (TlsHandshakeException $e) {
            self::assertStringContainsString('certificate verify failed', $e->getMessage());
            self::assertStringContainsString('tls_insecure', $e->getMessage(), 'the message names the way out');
        }
        $server->await();
        self::assertSame($before, self::openDescriptors(), 'the refused socket is closed');
    }

    public function testTlsInsecureAcceptsASelfSignedCertificate(): void
    {
        [$address, $server] = $this->tlsServer(TestCertificates::SELF_SIGNED);

        $stream = $this->keep((new SocketConnector())->connect(self::tcp($address), \microtime(true) + 5, null, new ClientTls('localhost', insecure: true)));

        self::assertSame('hello', self::readAll($stream, 5));
        $server->await();
    }

    public function testOneConnectsTlsSettingsDoNotCarryOverToTheNext(): void
    {
        [$address, $server] = $this->tlsServer(TestCertificates::LOCALHOST);
        $this->keep((new SocketConnector())->connect(self::tcp($address), \microtime(true) + 5, null, new ClientTls('localhost', caFile: TestCertificates::ca())));
        $server->await();
        [$address, $server] = $this->tlsServer(TestCertificates::LOCALHOST);

        try {
            (new SocketConnector())->connect(self::tcp($address), \microtime(true) + 5, null, new ClientTls('localhost'));
            self::fail('Without the CA this time, the certificate cannot be verified');
        } catch (TlsHandshakeException $e) {
            self::assertStringContainsString('certificate verify failed', $e->getMessage());
        }
        $server->await();
    }

    public function testTlsAcceptsACertificateSignedByTheGivenCaForTheRightName(): void
    {
        [$address, $server] = $this->tlsServer(TestCertificates::LOCALHOST);

        $stream = $this->keep((new SocketConnector())->connect(self::tcp($address), \microtime(true) + 5, null, new ClientTls('localhost', caFile: TestCertificates::ca())));

        self::assertSame('hello', self::readAll($stream, 5));
        $server->await();
    }

    public function testTlsRefusesACertificateForAnotherName(): void
    {
        [$address, $server] = $this->tlsServer(TestCertificates::WRONG_HOST);

        try {
            (new SocketConnector())->connect(self::tcp($address), \microtime(true) + 5, null, new ClientTls('localhost', caFile: TestCertificates::ca()));
            self::fail('The certificate names another host');
        } catch (TlsHandshakeException $e) {
            self::assertStringContainsString('did not match', $e->getMessage());
        }
        $server->await();
    }

    public function testTlsCanStartLaterOnAConnectedStreamAfterAPlaintextExchange(): void
    {
        [$address, $server] = $this->tlsServer(TestCertificates::LOCALHOST, prelude: "STARTTLS\n");
        $stream = $this->keep((new SocketConnector())->connect(self::tcp($address), \microtime(true) + 5));
        self::assertSame("STARTTLS\n", self::readAll($stream, 9));

        SocketConnector::startTls($stream, new ClientTls('localhost', caFile: TestCertificates::ca()), \microtime(true) + 5);

        self::assertSame('hello', self::readAll($stream, 5));
        $server->await();
    }

    public function testATlsHandshakeTheServerNeverAnswersTimesOutAndClosesTheSocket(): void
    {
        $listener = $this->listener('tcp://127.0.0.1:0'); // accepts in the kernel, never speaks
        $before = self::openDescriptors();

        try {
            (new SocketConnector())->connect(self::tcp((string) \stream_socket_get_name($listener, false)), \microtime(true) + 0.1, null, new ClientTls('localhost'));
            self::fail('Nobody answers the handshake');
        } catch (TimeoutException) {
        }
        self::assertSame($before, self::openDescriptors());
    }

    private static function tcp(string $address): ConnectTarget
    {
        $colon = (int) \strrpos($address, ':');

        return ConnectTarget::tcp(\substr($address, 0, $colon), (int) \substr($address, $colon + 1));
    }

    /**
     * @param array<string, mixed> $ssl
     * @return resource
     */
    private function listener(string $uri, int $backlog = 128, array $ssl = []): mixed
    {
        $listener = \stream_socket_server($uri, $errno, $error, \STREAM_SERVER_BIND | \STREAM_SERVER_LISTEN, \stream_context_create([
            'socket' => ['backlog' => $backlog],
            'ssl' => $ssl,
        ]));
        self::assertNotFalse($listener, (string) $error);

        return $this->keep($listener);
    }

    /** A listener whose accept queue is full: the kernel drops further SYNs, so their connects hang. */
    private function listenerWithAFullAcceptQueue(): string
    {
        $listener = $this->listener('tcp://127.0.0.1:0', backlog: 0);
        $address = (string) \stream_socket_get_name($listener, false);
        $this->keep((new SocketConnector())->connect(self::tcp($address), \microtime(true) + 5));

        return $address;
    }

    /**
     * A TLS server with the test certificate $name, serving one connection in a task: it sends
     * $prelude in plaintext, then does the handshake and sends "hello".
     *
     * @return array{string, Future<void>}
     */
    private function tlsServer(string $name, string $prelude = ''): array
    {
        $listener = $this->listener('tcp://127.0.0.1:0', ssl: [
            'local_cert' => TestCertificates::certificate($name),
            'local_pk' => TestCertificates::key($name),
            'verify_peer' => false,
        ]);
        $server = Async::run(function () use ($listener, $prelude): void {
            Async::awaitReadable($listener, 5.0);
            $client = \stream_socket_accept($listener, 0);
            self::assertIsResource($client);
            \stream_set_blocking($client, false);
            \fwrite($client, $prelude);
            $deadline = \microtime(true) + 5;
            while (($done = @\stream_socket_enable_crypto($client, true, \STREAM_CRYPTO_METHOD_TLS_SERVER)) === 0 && \microtime(true) < $deadline) {
                Async::awaitReadable($client, 5.0);
            }
            if ($done === true) {
                @\fwrite($client, 'hello'); // fails where the client refused the certificate
            }
            \fclose($client);
        });

        return [(string) \stream_socket_get_name($listener, false), $server];
    }

    /**
     * @param resource $stream
     * @param positive-int $length
     */
    private static function readAll(mixed $stream, int $length): string
    {
        $bytes = '';
        $deadline = \microtime(true) + 5;
        while (\strlen($bytes) < $length && \microtime(true) < $deadline) {
            $more = (string) \fread($stream, \max(1, $length - \strlen($bytes)));
            if ($more === '') {
                Async::awaitReadable($stream, 1.0);
            }
            $bytes .= $more;
        }

        return $bytes;
    }

    private function socketPath(): string
    {
        return $this->socketPath ??= \sys_get_temp_dir() . '/bobbin-connector-' . \getmypid() . '.sock';
    }

    /**
     * @param resource|false $stream
     * @return resource
     */
    private function keep(mixed $stream): mixed
    {
        self::assertIsResource($stream);
        $this->open[] = $stream;

        return $stream;
    }

    private static function openDescriptors(): int
    {
        return \count((array) \scandir('/proc/self/fd'));
    }
}
