<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Mysql;

use Bobbin\Tests\Support\Mysql\EmbeddedMysql;
use PHPUnit\Framework\Attributes\TestWith;

final class PlainScriptTest extends MysqlTestCase
{
    public function testTheSameCallsWorkInAPlainBlockingScript(): void
    {
        $script = <<<'PHP'
            require $argv[1] . '/vendor/autoload.php';
            Bobbin\Async\Async::installLoopDriver();
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

    /**
     * A script that catches a timeout and goes on with blocking work runs no loop: the KILL
     * QUERY must be on its way before the caller has its exception, not at the next statement.
     */
    #[TestWith(['pool'])]
    #[TestWith(['connection'])]
    public function testACancelledStatementOfABlockingScriptIsKilledBeforeTheScriptGoesOn(string $executor): void
    {
        $marker = 'bobbin_blocking_kill_' . \bin2hex(\random_bytes(4));
        $script = <<<'PHP'
            require $argv[1] . '/vendor/autoload.php';
            Bobbin\Async\Async::installLoopDriver();
            $executor = $argv[3] === 'pool'
                ? new Bobbin\Mysql\ConnectionPool(Bobbin\Mysql\PoolConfig::fromUrl($argv[2], maxSize: 2))
                : Bobbin\Mysql\Connection::connect($argv[2]);
            try {
                $executor->query("SELECT SLEEP(10) AS $argv[4]", [], new Bobbin\Async\TimeoutCancellation(0.3));
            } catch (Bobbin\Async\CancelledException) {
                echo "caught\n";
            }
            sleep(4); // blocking work: nothing runs the loop meanwhile
            PHP;
        $process = \proc_open(
            [\PHP_BINARY, '-d', 'error_reporting=-1', '-d', 'display_errors=stderr', '-r', $script, \dirname(__DIR__, 3), EmbeddedMysql::url(), $executor, $marker],
            [1 => ['pipe', 'w'], 2 => ['pipe', 'w']],
            $pipes,
        );
        self::assertIsResource($process);
        try {
            \stream_set_timeout($pipes[1], 5);
            $line = \fgets($pipes[1]);
            if ($line !== "caught\n") {
                self::fail('the script did not get its cancellation: ' . $line . \stream_get_contents($pipes[2]));
            }
            $caught = \microtime(true);
            while (self::sessionsRunning("%$marker%") > 0) {
                self::assertLessThan(1.0, \microtime(true) - $caught, 'SLEEP(10) still runs while the script does blocking work');
                \usleep(50_000);
            }
        } finally {
            \proc_terminate($process);
            \proc_close($process);
        }
    }
}
