<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Security;

use Bobbin\Mysql\Connection as MysqlConnection;
use Bobbin\Mysql\ConnectionConfig as MysqlConfig;
use Bobbin\Mysql\ConnectionPool as MysqlPool;
use Bobbin\Mysql\PoolConfig as MysqlPoolConfig;
use Bobbin\Nats\Connection as NatsConnection;
use Bobbin\Pool\PoolSettings;
use Bobbin\Postgres\Connection as PgConnection;
use Bobbin\Postgres\ConnectionPool as PgPool;
use Bobbin\Postgres\PoolConfig as PgPoolConfig;
use Bobbin\Redis\Client as RedisClient;
use Bobbin\Redis\ClientConfig as RedisClientConfig;
use Bobbin\Redis\Connection as RedisConnection;
use Bobbin\Tarantool\Connection as TarantoolConnection;
use Bobbin\Tarantool\PoolConfig as TarantoolPoolConfig;
use Bobbin\Tests\Support\Http\HttpGet;
use Bobbin\Tests\Support\Mysql\EmbeddedMysql;
use Bobbin\Tests\Support\Nats\NatsServer;
use Bobbin\Tests\Support\Process\MasterProcess;
use Bobbin\Tests\Support\Redis\EmbeddedRedis;
use Bobbin\Tests\Support\Redis\TlsRedisServer;
use Bobbin\Tests\Support\Tarantool\EmbeddedTarantool;
use Bobbin\Tests\Support\Tls\TestCertificates;
use Closure;
use PHPUnit\Framework\TestCase;

/**
 * No password reaches an exception message, its string form (the trace with every argument in
 * full: zend.exception_ignore_args off, no length limit — the worst a production log can hold)
 * or a server's log, when a client fails to connect (refused), to log in (wrong credentials),
 * to agree on TLS, to get a connection from its pool in time, or refuses its settings (the
 * URL's own frame then is in the trace: #[\SensitiveParameter]) (issue 36 item 4).
 */
final class SecretsNeverPrintedTest extends TestCase
{
    private string $secret = '';
    /** @var array<string, string|false> */
    private array $ini = [];

    protected function setUp(): void
    {
        $this->secret = 'S3cr3t' . \bin2hex(\random_bytes(8));
        foreach (['zend.exception_ignore_args' => '0', 'zend.exception_string_param_max_len' => '1000000'] as $name => $value) {
            $this->ini[$name] = \ini_set($name, $value);
        }
    }

    protected function tearDown(): void
    {
        foreach ($this->ini as $name => $value) {
            if ($value !== false) {
                \ini_set($name, $value);
            }
        }
    }

    public function testPostgres(): void
    {
        $port = self::closedPort();
        $tcp = \sprintf('host=127.0.0.1 port=%d dbname=bobbin user=bobbin', self::pgPort());
        $this->assertNeverPrinted('refused', fn () => PgConnection::connect("host=127.0.0.1 port=$port dbname=x user=u password={$this->secret} sslmode=disable"));
        $this->assertNeverPrinted('wrong password', fn () => PgConnection::connect("$tcp password={$this->secret} sslmode=disable"));
        $this->assertNeverPrinted('TLS', fn () => PgConnection::connect("$tcp password={$this->secret} sslmode=verify-full"));
        $this->assertNeverPrinted('TLS, a URI', fn () => PgConnection::connect(\sprintf('postgresql://bobbin:%s@127.0.0.1:%d/bobbin?sslmode=verify-full', $this->secret, self::pgPort())));
        $this->assertNeverPrinted('refused settings', fn () => PgPoolConfig::fromConnectionString("host=db password={$this->secret} sslmode=require"));
        $pool = new PgPool(PgPoolConfig::fromConnectionString((string) \getenv('BOBBIN_TEST_DATABASE_URL') . " password={$this->secret}", maxSize: 1, acquireTimeout: 0.1));
        $held = $pool->acquire();
        $this->assertNeverPrinted('pool timeout', fn () => $pool->queryValue('SELECT 1'));
        $pool->release($held);
        $pool->close();
    }

    public function testMysql(): void
    {
        $port = self::closedPort();
        $this->assertNeverPrinted('refused', fn () => MysqlConnection::connect(MysqlConfig::fromUrl("mysql://bobbin:{$this->secret}@127.0.0.1:$port/bobbin?tls=disabled")));
        $this->assertNeverPrinted('refused settings', fn () => MysqlPoolConfig::fromUrl("mysql://bobbin:{$this->secret}@db/bobbin?tls=bogus"));
        $unix = MysqlConfig::fromUrl(EmbeddedMysql::url());
        $this->assertNeverPrinted('wrong password', fn () => MysqlConnection::connect($unix->with(password: $this->secret)));
        $this->assertNeverPrinted('TLS', fn () => MysqlConnection::connect(\str_replace('bobbin:bobbin@', "bobbin:{$this->secret}@", EmbeddedMysql::tcpUrl())));
        $user = 'sec_' . \bin2hex(\random_bytes(4));
        $admin = MysqlConnection::connect($unix);
        $admin->execute("CREATE USER '$user'@'localhost' IDENTIFIED BY '{$this->secret}'");
        try {
            $pool = new MysqlPool(new MysqlPoolConfig($unix->with(user: $user, password: $this->secret, database: ''), new PoolSettings(maxSize: 1, acquireTimeout: 0.1)));
            $held = $pool->acquire();
            $this->assertNeverPrinted('pool timeout', fn () => $pool->queryValue('SELECT 1'));
            $pool->release($held);
            $pool->close();
        } finally {
            $admin->execute("DROP USER '$user'@'localhost'");
            $admin->close();
        }
    }

    public function testRedis(): void
    {
        $port = self::closedPort();
        $this->assertNeverPrinted('refused', fn () => RedisConnection::connect("redis://bobbin:{$this->secret}@127.0.0.1:$port"));
        $this->assertNeverPrinted('refused settings', fn () => new RedisClient("redis://bobbin:{$this->secret}@db/not-a-number"));
        $unix = (string) \preg_replace('#//[^@]*@#', "//bobbin:{$this->secret}@", EmbeddedRedis::url());
        $this->assertNeverPrinted('wrong password', fn () => RedisConnection::connect($unix));
        $server = TlsRedisServer::start(TestCertificates::SELF_SIGNED);
        try {
            $this->assertNeverPrinted('TLS', fn () => RedisConnection::connect("rediss://bobbin:{$this->secret}@127.0.0.1:{$server->port}"));
        } finally {
            $server->stop();
        }
        $user = 'sec_' . \bin2hex(\random_bytes(4));
        $admin = RedisConnection::connect(EmbeddedRedis::url());
        $admin->execute(['ACL', 'SETUSER', $user, 'on', '>' . $this->secret, '~*', '&*', '+@all']);
        try {
            $client = new RedisClient(RedisClientConfig::fromUrl((string) \preg_replace('#//[^@]*@#', "//$user:{$this->secret}@", EmbeddedRedis::url()), poolMaxSize: 1, acquireTimeout: 0.1));
            $this->assertNeverPrinted('pool timeout', fn () => $client->transaction(fn () => $client->transaction(fn () => null)));
            $client->close();
        } finally {
            $admin->execute(['ACL', 'DELUSER', $user]);
            $admin->close();
        }
    }

    public function testNats(): void
    {
        $port = self::closedPort();
        $this->assertNeverPrinted('refused', fn () => NatsConnection::connect("nats://app:{$this->secret}@127.0.0.1:$port?name=x"));
        $this->assertNeverPrinted('refused, a token', fn () => NatsConnection::connect("nats://{$this->secret}@127.0.0.1:$port"));
        $this->assertNeverPrinted('refused settings', fn () => NatsConnection::connect("nats://app:{$this->secret}@127.0.0.1:$port?tls_verify=0"));
        $auth = NatsServer::start('authorization { users = [ { user: "app", password: "right-one" } ] }', jetStream: false);
        $tls = NatsServer::start(\sprintf('tls { cert_file: "%s", key_file: "%s" }', TestCertificates::certificate(TestCertificates::SELF_SIGNED), TestCertificates::key(TestCertificates::SELF_SIGNED)), jetStream: false);
        try {
            $this->assertNeverPrinted('wrong password', fn () => NatsConnection::connect(\str_replace('nats://', "nats://app:{$this->secret}@", $auth->url())));
            $this->assertNeverPrinted('TLS', fn () => NatsConnection::connect(\str_replace('nats://', "nats://app:{$this->secret}@", $tls->url())));
        } finally {
            $auth->remove();
            $tls->remove();
        }
        // No pool: one connection per process, multiplexed.
    }

    public function testTarantool(): void
    {
        $port = self::closedPort();
        $this->assertNeverPrinted('refused', fn () => TarantoolConnection::connect("tarantool://bobbin:{$this->secret}@127.0.0.1:$port"));
        $this->assertNeverPrinted('refused settings', fn () => TarantoolPoolConfig::fromUrl("redis://bobbin:{$this->secret}@127.0.0.1:$port"));
        $this->assertNeverPrinted('wrong password', fn () => TarantoolConnection::connect((string) \preg_replace('#//([^:]*):[^@]*@#', "//$1:{$this->secret}@", EmbeddedTarantool::url())));
        // No TLS (Enterprise only); a pool timeout needs a user with this password, which the test server has not.
    }

    public function testTheServerLogsAFailedDatabaseLoginWithoutThePassword(): void
    {
        $url = \sprintf('host=127.0.0.1 port=%d dbname=bobbin user=bobbin password=%s sslmode=disable', self::pgPort(), $this->secret);
        $master = MasterProcess::start(__DIR__ . '/../../Support/Http/database-app.php', ['--workers=1'], ['DATABASE_URL' => $url]);
        try {
            $response = HttpGet::fetch($master->address, '/pg-sleep?s=0');

            self::assertSame(500, $response['status']);
            $master->waitForLog('/password authentication failed/');
            self::assertStringNotContainsString($this->secret, $master->log());
            self::assertStringNotContainsString($this->secret, $response['body']);
        } finally {
            $master->stop();
        }
    }

    public function testNeitherMetricsNorStatusShowThePasswordOfAPool(): void
    {
        $url = (string) \getenv('BOBBIN_TEST_DATABASE_URL') . " password={$this->secret}"; // the unix socket trusts: it connects
        $master = MasterProcess::start(__DIR__ . '/../../Support/Http/database-app.php', ['--workers=1', '--admin=127.0.0.1:0'], ['DATABASE_URL' => $url]);
        try {
            $admin = $master->waitForLog('/Admin on (\S+):/')[1];
            self::assertSame(200, HttpGet::fetch($master->address, '/pg-sleep?s=0')['status']);
            $metrics = HttpGet::fetch($admin, '/metrics')['body'];
            $status = HttpGet::fetch($admin, '/status.json')['body'];

            self::assertStringContainsString('bobbin_db_pool_acquisitions_total{pool="postgres ', $metrics);
            self::assertStringNotContainsString($this->secret, $metrics);
            self::assertStringNotContainsString($this->secret, $status);
            self::assertStringNotContainsString($this->secret, $master->log());
        } finally {
            $master->stop();
        }
    }

    private function assertNeverPrinted(string $case, Closure $failing): void
    {
        try {
            $failing();
            self::fail("$case: no failure");
        } catch (\Throwable $e) {
            self::assertNotInstanceOf(\PHPUnit\Framework\AssertionFailedError::class, $e, "$case: no failure");
            $printed = $e->getMessage() . "\n" . $e;
            self::assertStringNotContainsString($this->secret, $printed, "$case: the password was printed:\n$e");
            self::assertStringNotContainsString(\rawurlencode($this->secret), $printed);
        }
    }

    private static function closedPort(): int
    {
        $probe = \stream_socket_server('tcp://127.0.0.1:0');
        \assert($probe !== false);
        $name = (string) \stream_socket_get_name($probe, false);
        \fclose($probe);

        return (int) \substr($name, \strrpos($name, ':') + 1);
    }

    private static function pgPort(): int
    {
        \preg_match('/port=(\d+)/', (string) \getenv('BOBBIN_TEST_DATABASE_URL'), $m);

        return (int) ($m[1] ?? 5432);
    }
}
