<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Mysql;

use Bobbin\Tests\Support\Mysql\EmbeddedMysql;

final class PlainScriptTest extends MysqlTestCase
{
    public function testTheSameCallsWorkInAPlainBlockingScript(): void
    {
        $script = <<<'PHP'
            require $argv[1] . '/vendor/autoload.php';
            $pool = new Bobbin\Mysql\ConnectionPool(Bobbin\Mysql\PoolConfig::fromUrl($argv[2], maxSize: 2));
            $value = $pool->queryValue('SELECT ? + 1', [41]);
            $inTx = $pool->transaction(fn (Bobbin\Mysql\Transaction $tx) => $tx->queryOne('SELECT TRUE AS ok'));
            $connection = Bobbin\Mysql\Connection::connect($argv[2]);
            $text = $connection->command('SELECT 2 AS two')->rows;
            $connection->close();
            $pool->close();
            echo json_encode([$value, $inTx, $text]);
            PHP;
        $output = [];
        \exec(\sprintf(
            '%s -d error_reporting=-1 -d display_errors=stderr -r %s %s %s 2>&1',
            \escapeshellarg(\PHP_BINARY),
            \escapeshellarg($script),
            \escapeshellarg(\dirname(__DIR__, 3)),
            \escapeshellarg(EmbeddedMysql::url()),
        ), $output, $status);

        self::assertSame(0, $status, \implode("\n", $output));
        self::assertSame(['[42,{"ok":1},[{"two":2}]]'], $output, 'no warning or notice is printed');
    }
}
