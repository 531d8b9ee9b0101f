<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Mysql;

use Bobbin\Mysql\Connection;
use Bobbin\Mysql\ConnectionConfig;
use Bobbin\Mysql\Exception\AccessDeniedException;
use Bobbin\Mysql\Exception\ConnectException;
use Bobbin\Mysql\Exception\ConnectTimeoutException;
use Bobbin\Mysql\TlsMode;
use Bobbin\Tests\Support\Mysql\EmbeddedMysql;

final class ConnectTest extends MysqlTestCase
{
    public function testItConnectsOverTheUnixSocketAndOverTcp(): void
    {
        $unix = $this->connect();
        $tcp = $this->connect(ConnectionConfig::fromUrl(EmbeddedMysql::tcpUrl() . '?tls=disabled'));

        self::assertSame('bobbin', $unix->queryValue('SELECT DATABASE()'));
        self::assertStringContainsString('MariaDB', $unix->serverVersion());
        self::assertStringStartsWith('bobbin@127.0.0.1', (string) $tcp->queryValue('SELECT USER()'));
        self::assertSame(['Variable_name' => 'Ssl_cipher', 'Value' => ''], $tcp->queryOne("SHOW SESSION STATUS LIKE 'Ssl_cipher'"));
    }

    public function testTlsIsVerifiedAgainstTheGivenCa(): void
    {
        $connection = $this->connect(ConnectionConfig::fromUrl(EmbeddedMysql::tcpUrl() . '?tls=required&tls_ca=' . EmbeddedMysql::tlsCa()));

        self::assertTrue($connection->isEncrypted());
        self::assertNotSame('', $connection->queryOne("SHOW SESSION STATUS LIKE 'Ssl_cipher'")['Value'] ?? '');
    }

    public function testAnUnknownCertificateIsRefusedByDefault(): void
    {
        $this->expectException(ConnectException::class);
        $this->expectExceptionMessage('certificate verify failed');
        Connection::connect(ConnectionConfig::fromUrl(EmbeddedMysql::tcpUrl() . '?tls=required'));
    }

    public function testTheDefaultModeRefusesACertificateItCannotVerifyInsteadOfEncryptingUnverifiedOrGoingOnInClearText(): void
    {
        try {
            Connection::connect(ConnectionConfig::fromUrl(EmbeddedMysql::tcpUrl()));
            self::fail('preferred accepted a certificate signed by a CA nobody gave it');
        } catch (ConnectException $e) {
            self::assertStringContainsString('certificate verify failed', $e->getMessage());
            self::assertStringContainsString('tls_insecure=1', $e->getMessage(), 'the message names the way around the check');
        }
    }

    public function testTheDefaultModeVerifiesAgainstTheGivenCa(): void
    {
        $verified = $this->connect(ConnectionConfig::fromUrl(EmbeddedMysql::tcpUrl() . '?tls_ca=' . EmbeddedMysql::tlsCa()));

        self::assertTrue($verified->isEncrypted());
    }

    public function testTheInsecureOptInEncryptsWithoutVerifying(): void
    {
        $connection = $this->connect(ConnectionConfig::fromUrl(EmbeddedMysql::tcpUrl() . '?tls_insecure=1'));

        self::assertTrue($connection->isEncrypted(), 'encrypted, as asked, to a server whose certificate nobody checked');
        self::assertNotSame('', $connection->queryOne("SHOW SESSION STATUS LIKE 'Ssl_cipher'")['Value'] ?? '');
    }

    public function testAUserWhoRequiresTlsGetsInOnlyWithIt(): void
    {
        $user = 'tls_' . \bin2hex(\random_bytes(4));
        EmbeddedMysql::client("CREATE USER '$user'@'127.0.0.1' IDENTIFIED BY 'pw' REQUIRE SSL; GRANT USAGE ON *.* TO '$user'@'127.0.0.1'");
        try {
            $base = ConnectionConfig::fromUrl(EmbeddedMysql::tcpUrl())->with(user: $user, password: 'pw', database: '', tlsCa: EmbeddedMysql::tlsCa());
            $encrypted = $this->connect($base->with(tls: TlsMode::Required));
            self::assertTrue($encrypted->isEncrypted());
            try {
                Connection::connect($base->with(tls: TlsMode::Disabled));
                self::fail('a plain connection must be refused');
            } catch (AccessDeniedException $e) {
                self::assertSame(1045, $e->errorCode());
            }
        } finally {
            EmbeddedMysql::client("DROP USER '$user'@'127.0.0.1'");
        }
    }

    public function testAWrongPasswordIsAClearAccessDeniedAtOnce(): void
    {
        $started = \microtime(true);
        try {
            Connection::connect(self::config(password: 'wrong'));
            self::fail('the password is wrong');
        } catch (AccessDeniedException $e) {
            self::assertStringContainsString("Access denied for user 'bobbin'", $e->getMessage());
            self::assertStringNotContainsString('wrong', $e->getMessage(), 'the password is never shown');
        }
        self::assertLessThan(1.0, \microtime(true) - $started);
    }

    public function testAnUnknownDatabaseIsAccessDenied(): void
    {
        $this->expectException(ConnectException::class);
        $this->expectExceptionMessage('Unknown database');
        Connection::connect(self::config(database: 'no_such_db'));
    }

    public function testAClosedPortIsAConnectException(): void
    {
        $server = \stream_socket_server('tcp://127.0.0.1:0');
        self::assertNotFalse($server);
        $port = (int) \substr((string) \stream_socket_get_name($server, false), 10);
        \fclose($server);

        $this->expectException(ConnectException::class);
        $this->expectExceptionMessage('127.0.0.1:' . $port);
        Connection::connect(new ConnectionConfig(port: $port, tls: TlsMode::Disabled));
    }

    public function testAServerThatNeverGreetsIsAConnectTimeout(): void
    {
        $server = \stream_socket_server('tcp://127.0.0.1:0');
        self::assertNotFalse($server);
        $port = (int) \substr((string) \stream_socket_get_name($server, false), 10);
        $started = \microtime(true);
        try {
            Connection::connect(new ConnectionConfig(port: $port, connectTimeout: 0.3));
            self::fail('nothing answers');
        } catch (ConnectTimeoutException $e) {
            self::assertStringContainsString('0.300 s', $e->getMessage());
        } finally {
            \fclose($server);
        }
        self::assertLessThan(1.0, \microtime(true) - $started);
    }

    public function testLoadDataLocalInfileIsNeverOffered(): void
    {
        $table = $this->createTable('v varchar(10)');
        $file = \tempnam(\sys_get_temp_dir(), 'infile');
        \file_put_contents((string) $file, "secret\n");
        try {
            $this->connect()->command("LOAD DATA LOCAL INFILE '$file' INTO TABLE $table");
            self::fail('LOCAL INFILE must not work');
        } catch (\Bobbin\Mysql\Exception\QueryException $e) {
            self::assertContains($e->errorCode(), [1148, 4166], 'the server knows the client does not allow it');
            self::assertStringContainsString('LOCAL', $e->getMessage());
        } finally {
            @\unlink((string) $file);
        }
        self::assertSame('0', EmbeddedMysql::client("SELECT COUNT(*) FROM $table"));
    }
}
