<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Tarantool;

use Bobbin\Tests\Support\Tarantool\EmbeddedTarantool;
use PHPUnit\Framework\TestCase;

/** The same calls in a plain script (or a PHP-FPM request): each runs the loop until its answer is in. */
final class PlainScriptTest extends TestCase
{
    public function testTheSameCallsWorkInAPlainBlockingScript(): void
    {
        $script = <<<'PHP'
            require $argv[1] . '/vendor/autoload.php';
            Bobbin\Async\Async::installLoopDriver();
            $tarantool = Bobbin\Tarantool\Connection::connect($argv[2]);
            $tarantool->replace('bench', [1, 'tuple_1']);
            $pushed = [];
            $out = [
                $tarantool->select('bench', 1),
                $tarantool->update('bench', 1, [Bobbin\Tarantool\Update::assign(1, 'changed')]),
                $tarantool->call('push_messages', [2], function ($m) use (&$pushed) { $pushed[] = $m; }),
                $tarantool->execute('SELECT "value" FROM "bench" WHERE "id" = ?', [1])->rows,
            ];
            $tarantool->close();
            $pool = new Bobbin\Tarantool\ConnectionPool(Bobbin\Tarantool\PoolConfig::fromUrl($argv[2], maxSize: 1));
            $out[] = $pool->eval('return 1 + 1');
            $pool->close();
            $out[] = $pushed;
            echo json_encode($out);
            PHP;
        $output = [];
        \exec(\sprintf(
            '%s -d error_reporting=-1 -d display_errors=stderr -r %s %s %s 2>&1',
            \escapeshellarg(\PHP_BINARY),
            \escapeshellarg($script),
            \escapeshellarg(\dirname(__DIR__, 3)),
            \escapeshellarg(EmbeddedTarantool::url()),
        ), $output, $status);

        self::assertSame(0, $status, \implode("\n", $output));
        self::assertSame(
            ['[[[1,"tuple_1"]],[1,"changed"],["done"],[{"value":"changed"}],[2],[[1,"message 1"],[2,"message 2"]]]'],
            $output,
            'no warning or notice is printed',
        );
    }
}
