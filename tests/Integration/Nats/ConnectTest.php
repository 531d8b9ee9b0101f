<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Nats;

use Bobbin\Nats\Connection;
use Bobbin\Nats\ConnectionConfig;
use Bobbin\Nats\Exception\AuthorizationException;
use Bobbin\Nats\Exception\ConnectException;

final class ConnectTest extends NatsTestCase
{
    public function testUserAndPasswordAreAccepted(): void
    {
        $server = $this->privateServer('authorization { users = [ { user: "app", password: "s3cret/+" } ] }');
        $connection = $this->connect($server->url('app:' . \rawurlencode('s3cret/+')));

        $subscription = $connection->subscribe('auth.ok');
        $connection->publish('auth.ok', 'in');

        self::assertSame('in', $subscription->next(2)->payload);
    }

    public function testAWrongPasswordIsAnAuthorizationError(): void
    {
        $server = $this->privateServer('authorization { users = [ { user: "app", password: "right" } ] }');

        try {
            $this->connect($server->url('app:wrong'));
            self::fail('a wrong password was accepted');
        } catch (AuthorizationException $error) {
            self::assertStringContainsString('Authorization Violation', $error->getMessage());
            self::assertStringNotContainsString('wrong', $error->getMessage(), 'the password is never in a message');
        }
    }

    public function testATokenIsAccepted(): void
    {
        $server = $this->privateServer('authorization { token: "t0ken" }');

        $connection = $this->connect($server->url('t0ken'));
        $connection->flush();

        self::assertSame('nats://***@127.0.0.1:' . $server->port, $connection->config->describe());
    }

    public function testAMissingTokenIsAnAuthorizationError(): void
    {
        $server = $this->privateServer('authorization { token: "t0ken" }');

        $this->expectException(AuthorizationException::class);
        $this->connect($server->url());
    }

    public function testTlsWhenTheServerRequiresIt(): void
    {
        $tls = self::certificates();
        $server = $this->privateServer(\sprintf('tls { cert_file: "%s/server.pem", key_file: "%s/server-key.pem" }', $tls, $tls));

        $connection = $this->connect($server->url() . '?tls_ca=' . \rawurlencode($tls . '/ca.pem'));
        $subscription = $connection->subscribe('tls.x');
        $connection->publish('tls.x', \str_repeat('secret ', 10000));

        self::assertSame(70000, \strlen($subscription->next(2)->payload));
        self::assertTrue($connection->serverInfo()['tls_required'] ?? false);
    }

    public function testACertificateNotSignedByTheGivenCaIsRefused(): void
    {
        $tls = self::certificates();
        $server = $this->privateServer(\sprintf('tls { cert_file: "%s/server.pem", key_file: "%s/server-key.pem" }', $tls, $tls));

        $this->expectException(ConnectException::class);
        $this->expectExceptionMessage('TLS with NATS');
        $this->connect($server->url()); // the system's CAs do not know the test CA
    }

    public function testARefusedConnectionIsAConnectError(): void
    {
        $probe = \stream_socket_server('tcp://127.0.0.1:0');
        self::assertNotFalse($probe);
        $name = (string) \stream_socket_get_name($probe, false);
        \fclose($probe);

        $this->expectException(ConnectException::class);
        Connection::connect(ConnectionConfig::fromUrl('nats://' . $name));
    }

    public function testAServerThatNeverGreetsTimesOutAtTheConnectTimeout(): void
    {
        $silent = \stream_socket_server('tcp://127.0.0.1:0');
        self::assertNotFalse($silent);
        $started = \microtime(true);
        try {
            Connection::connect(ConnectionConfig::fromUrl('nats://' . \stream_socket_get_name($silent, false), connectTimeout: 0.3));
            self::fail('connected to a server that said nothing');
        } catch (ConnectException $error) {
            self::assertStringContainsString('timed out', $error->getMessage());
        } finally {
            \fclose($silent);
        }
        self::assertLessThan(1.5, \microtime(true) - $started);
    }

    /** A CA and a server certificate for 127.0.0.1, made once per run under var/. */
    private static function certificates(): string
    {
        $directory = \dirname(__DIR__, 3) . '/var/nats-tls';
        if (\is_file($directory . '/server.pem')) {
            return $directory;
        }
        @\mkdir($directory, 0700, true);
        $commands = [
            "openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj '/CN=Bobbin test CA' -keyout ca-key.pem -out ca.pem",
            "openssl req -newkey rsa:2048 -nodes -subj '/CN=localhost' -keyout server-key.pem -out server.csr",
            "printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\n' > san.ext",
            'openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 3650 -extfile san.ext -out server.pem',
        ];
        \exec('cd ' . \escapeshellarg($directory) . ' && ' . \implode(' 2>/dev/null && ', $commands) . ' 2>/dev/null', $output, $code);
        self::assertSame(0, $code, 'openssl made the certificates');

        return $directory;
    }
}
