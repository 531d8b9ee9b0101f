<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Mysql;

use Bobbin\Async\Async;
use Bobbin\Mysql\Exception\ConnectionLostException;
use Bobbin\Tests\Support\Mysql\EmbeddedMysql;

/** MariaDB restarted under a pool: between requests nobody notices, during one only its caller does. */
final class ServerRestartTest extends MysqlTestCase
{
    public function testIdleConnectionsReconnectUnseenAfterARestartBetweenRequests(): void
    {
        $pool = $this->pool(maxSize: 3);
        $before = [];
        foreach ([1, 2, 3] as $n) {
            $before[] = Async::run(static fn () => $pool->queryValue('SELECT CONNECTION_ID() + ? * 0', [$n]));
        }
        $ids = \array_map(static fn ($f) => $f->await(), $before);
        self::assertSame(3, $pool->statistics()->idle);

        EmbeddedMysql::stop();
        EmbeddedMysql::start();

        $after = $pool->queryValue('SELECT CONNECTION_ID() + ? * 0', [1]);
        self::assertNotContains($after, $ids, 'a new session');
        self::assertSame(3, $pool->statistics()->discarded, 'every idle connection was seen dead and dropped, none used');
        self::assertSame(1, $pool->statistics()->open);
    }

    public function testARestartDuringAStatementFailsOnlyThatCallerWithoutARetry(): void
    {
        $table = $this->createTable('id int AUTO_INCREMENT PRIMARY KEY, at double');
        $pool = $this->pool(maxSize: 2);
        $pool->execute("INSERT INTO $table (at) VALUES (?)", [1.0]);
        $restart = \proc_open(
            ['/bin/bash', '-c', 'for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; sleep 0.3; exec "$0" restart', \dirname(__DIR__, 3) . '/scripts/mysql'],
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']],
            $pipes,
        );
        self::assertIsResource($restart);
        $started = \microtime(true);
        try {
            $pool->query("INSERT INTO $table (at) SELECT SLEEP(5) FROM DUAL");
            self::fail('the statement cannot survive the restart');
        } catch (ConnectionLostException) {
            self::assertLessThan(5.0, \microtime(true) - $started, 'nothing hangs');
        } finally {
            while (\proc_get_status($restart)['running']) {
                Async::delay(0.05);
            }
            \proc_close($restart);
        }

        self::assertSame(1, $pool->queryValue("SELECT COUNT(*) FROM $table"), 'the statement was not sent again');
        self::assertSame(2, $pool->queryValue("SELECT ? + 1", [1]), 'statements are prepared again on the new session');
    }
}
