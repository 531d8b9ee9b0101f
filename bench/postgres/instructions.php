<?php

declare(strict_types=1);

/*
 * Instructions per statement, one caller at a time, of this client and of blocking pg_execute,
 * counted by valgrind's callgrind (the count does not move with the machine's load; seconds do):
 *
 *   php bench/postgres/instructions.php [--statements=2000,6000] [--only=select,cycle] [--clients=pgsql,ours,connection] [--cache=16]
 *
 * As bench/mysql/instructions.php: each client runs twice under callgrind, with opcache and the
 * tracing JIT, executing A and then B statements after the same warm-up; (instructions(B) -
 * instructions(A)) / (B - A) leaves out start-up, compilation and shutdown. select is a point
 * SELECT by primary key (four columns), one statement run again and again (the statement cache
 * warm); cycle the same SELECT as CACHE + 1 distinct statements (a comment tells them apart)
 * taken in turn over a statement cache of CACHE: every statement misses, evicts the least
 * recently used and prepares. ours is the pool, connection one Connection without the pool,
 * pgsql pg_prepare once + pg_execute (for cycle: pg_query_params, no cache). User space only.
 * The database is the one BOBBIN_TEST_DATABASE_URL names, else this checkout's (scripts/pg).
 */

use Bobbin\Bench\Callgrind;
use Bobbin\Async\Async;
use Bobbin\Postgres\Connection;
use Bobbin\Postgres\ConnectionPool;
use Bobbin\Postgres\PoolConfig;

require \dirname(__DIR__, 2) . '/vendor/autoload.php';
require \dirname(__DIR__) . '/lib/autoload.php';

const WARM_UP = 1000;
const TABLE = 'bench_pg_instructions_items';

$options = \getopt('', ['statements::', 'only::', 'clients::', 'child::', 'count::', 'dsn::', 'cache::']);
$root = \dirname(__DIR__, 2);
$dsn = (string) ($options['dsn'] ?? (\getenv('BOBBIN_TEST_DATABASE_URL') ?: \trim((string) \shell_exec(\escapeshellarg("$root/scripts/pg") . ' url'))));
$cache = \max(1, (int) ($options['cache'] ?? 16));

if (isset($options['child'])) {
    Async::installLoopDriver();
    [$client, $kind] = \explode(':', (string) $options['child']);
    runChild($client, $kind, (int) $options['count'], $dsn, $cache);
    exit(0);
}

[$fewer, $more] = \array_map('intval', \explode(',', (string) ($options['statements'] ?? '2000,6000')));
$kinds = \explode(',', (string) ($options['only'] ?? 'select,cycle'));
$clients = \explode(',', (string) ($options['clients'] ?? 'pgsql,ours,connection'));
if ($fewer <= 0 || $more <= $fewer) {
    \fwrite(\STDERR, "--statements=A,B needs 0 < A < B\n");
    exit(2);
}

$setup = \pg_connect($dsn);
\assert($setup !== false);
\pg_query($setup, 'DROP TABLE IF EXISTS ' . TABLE);
\pg_query($setup, 'CREATE TABLE ' . TABLE . ' (id int PRIMARY KEY, name text NOT NULL, price numeric(10,2) NOT NULL, active bool NOT NULL)');
\pg_query($setup, 'INSERT INTO ' . TABLE . " SELECT i, 'item ' || i, i * 1.5, i % 2 = 0 FROM generate_series(1, 1000) i");

$results = [];
foreach ($kinds as $kind) {
    foreach ($clients as $client) {
        $counts = [];
        foreach ([$fewer, $more] as $n) {
            $counts[$n] = countInstructions($dsn, "$client:$kind", $n, $cache);
        }
        $results[$kind][$client] = (int) \round(($counts[$more] - $counts[$fewer]) / ($more - $fewer));
    }
}
\pg_query($setup, 'DROP TABLE IF EXISTS ' . TABLE);

foreach ($results as $kind => $byClient) {
    foreach ($byClient as $client => $perStatement) {
        $ratio = isset($byClient['pgsql']) && $client !== 'pgsql' ? \sprintf(' (%.2fx pgsql)', $perStatement / $byClient['pgsql']) : '';
        \printf("%-7s %-10s %8d instructions/statement%s\n", $kind, $client, $perStatement, $ratio);
    }
}
echo \json_encode($results), "\n";

function countInstructions(string $dsn, string $variant, int $count, int $cache): int
{
    $command = [...Callgrind::php(), __FILE__, '--child=' . $variant, '--count=' . $count, '--dsn=' . $dsn, '--cache=' . $cache];

    return Callgrind::count($command);
}

function runChild(string $client, string $kind, int $count, string $dsn, int $cache): void
{
    $select = 'SELECT id, name, price, active FROM ' . TABLE . ' WHERE id = $1';
    $cycle = [];
    for ($k = 0; $k <= $cache; $k++) {
        $cycle[] = "$select /* $k */";
    }
    $sink = 0;
    if ($client === 'pgsql') {
        $db = \pg_connect($dsn);
        \assert($db !== false);
        \pg_prepare($db, 's', $select);
        $loop = $kind === 'cycle'
            ? static function (int $n) use ($db, $cycle, &$sink): void {
                for ($i = 0; $i < $n; $i++) {
                    $sink += \count((array) \pg_fetch_assoc(\pg_query_params($db, $cycle[$i % \count($cycle)], [$i % 1000 + 1])));
                }
            }
            : static function (int $n) use ($db, &$sink): void {
                for ($i = 0; $i < $n; $i++) {
                    $sink += \count((array) \pg_fetch_assoc(\pg_execute($db, 's', [$i % 1000 + 1])));
                }
            };
    } else {
        $config = PoolConfig::fromConnectionString($dsn, maxSize: 1, statementCacheSize: $kind === 'cycle' ? $cache : 256);
        $pool = $client === 'connection' ? Connection::connect($config->connection) : new ConnectionPool($config);
        $loop = static function (int $n) use ($pool, $kind, $select, $cycle, &$sink): void {
            $cycled = $kind === 'cycle';
            for ($i = 0; $i < $n; $i++) {
                $sink += \count((array) $pool->queryOne($cycled ? $cycle[$i % \count($cycle)] : $select, [$i % 1000 + 1]));
            }
        };
    }
    $loop(WARM_UP);
    $loop($count);
}
