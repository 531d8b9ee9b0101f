<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Postgres;

final class PlainScriptTest extends PostgresTestCase
{
    public function testTheSameCallsWorkInAPlainBlockingScript(): void
    {
        $script = <<<'PHP'
            require $argv[1] . '/vendor/autoload.php';
            Bobbin\Async\Async::installLoopDriver();
            $pool = new Bobbin\Postgres\ConnectionPool(Bobbin\Postgres\PoolConfig::fromConnectionString($argv[2], maxSize: 2));
            $value = $pool->queryValue('SELECT $1::int + 1', [41]);
            $inTx = $pool->transaction(fn (Bobbin\Postgres\Transaction $tx) => $tx->queryOne('SELECT true AS ok'));
            $pool->close();
            echo json_encode([$value, $inTx]);
            PHP;
        $output = [];
        \exec(\sprintf(
            '%s -d error_reporting=-1 -d display_errors=stderr -r %s %s %s 2>&1',
            \escapeshellarg(\PHP_BINARY),
            \escapeshellarg($script),
            \escapeshellarg(\dirname(__DIR__, 3)),
            \escapeshellarg(self::dsn()),
        ), $output, $status);

        self::assertSame(0, $status, \implode("\n", $output));
        self::assertSame(['[42,{"ok":true}]'], $output, 'no warning or notice is printed');
    }
}
