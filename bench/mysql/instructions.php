<?php

declare(strict_types=1);

/*
 * Instructions per statement, one caller at a time, of this client and of mysqli (mysqlnd)
 * prepared statements, counted by valgrind's callgrind (the count does not move with the
 * machine's load; seconds do):
 *
 *   php bench/mysql/instructions.php [--statements=2000,6000] [--only=select,insert] [--clients=mysqli,ours,fiber,connection] [--keep=DIR] [--jit=tracing|function]
 *
 * Each client runs twice under callgrind, with opcache and the tracing JIT as bin/bobbin runs
 * PHP, executing A and then B statements after the same warm-up; (instructions(B) -
 * instructions(A)) / (B - A) leaves out start-up, compilation and shutdown. select is
 * bench/mysql/run.php's point SELECT by primary key (four columns), insert an INSERT of three
 * parameters into an AUTO_INCREMENT table reading the generated id, cycle the point SELECT as
 * CACHE + 1 distinct statements (a comment tells them apart) taken in turn over a statement cache
 * of CACHE (--cache=16): every statement misses, prepares and evicts the least recently used
 * (mysqli prepares, runs and closes each one). ours is the pool in a
 * plain script, fiber the same inside one fiber, connection one Connection without the pool,
 * mysqli bind_param + execute (+ get_result +
 * fetch_assoc for the select). Counts are user space only: system calls cost both clients
 * alike (one write and one read per statement each), and are not in them.
 *
 * --keep=DIR keeps the callgrind files and JIT perf maps as DIR/VARIANT/callgrind.N, which
 * bench/async/instructions-by-function.php DIR/VARIANT reads (where the instructions go).
 * --jit=function compiles each PHP function on its own, so that the perf map names every
 * function: a coarser JIT than the one measured, but a map of where the instructions go.
 * The database is the one BOBBIN_TEST_MYSQL_URL names, else this checkout's (scripts/mysql).
 */

use Bobbin\Bench\Callgrind;
use Bobbin\Async\Async;
use Bobbin\Mysql\Connection;
use Bobbin\Mysql\ConnectionPool;
use Bobbin\Mysql\PoolConfig;

require \dirname(__DIR__, 2) . '/vendor/autoload.php';
require \dirname(__DIR__) . '/lib/autoload.php';

const WARM_UP = 1000;
const TABLE = 'bench_mysql_instructions';

$options = \getopt('', ['statements::', 'only::', 'clients::', 'keep::', 'jit::', 'child::', 'count::', 'url::', 'cache::']);
$cache = \max(1, (int) ($options['cache'] ?? 16));
$root = \dirname(__DIR__, 2);
$url = (string) ($options['url'] ?? (\getenv('BOBBIN_TEST_MYSQL_URL') ?: \trim((string) \shell_exec(\escapeshellarg("$root/scripts/mysql") . ' url'))));

if (isset($options['child'])) {
    Async::installLoopDriver();
    [$client, $kind] = \explode(':', (string) $options['child']);
    runChild($client, $kind, (int) $options['count'], $url, $cache);
    exit(0);
}

[$fewer, $more] = \array_map('intval', \explode(',', (string) ($options['statements'] ?? '2000,6000')));
$kinds = \explode(',', (string) ($options['only'] ?? 'select,insert'));
$clients = \explode(',', (string) ($options['clients'] ?? 'mysqli,ours,fiber'));
$keep = isset($options['keep']) ? (string) $options['keep'] : null;
$jit = (string) ($options['jit'] ?? 'tracing');
if ($fewer <= 0 || $more <= $fewer) {
    \fwrite(\STDERR, "--statements=A,B needs 0 < A < B\n");
    exit(2);
}

$setup = connectMysqli($url);
$setup->query('DROP TABLE IF EXISTS ' . TABLE . '_items');
$setup->query('CREATE TABLE ' . TABLE . '_items (id int PRIMARY KEY, name varchar(50) NOT NULL, price decimal(10,2) NOT NULL, active bool NOT NULL) ENGINE=InnoDB');
$setup->query('INSERT INTO ' . TABLE . "_items SELECT seq, CONCAT('item ', seq), seq * 1.5, seq % 2 = 0 FROM seq_1_to_1000");
$setup->query('DROP TABLE IF EXISTS ' . TABLE . '_log');
$setup->query('CREATE TABLE ' . TABLE . '_log (id bigint unsigned AUTO_INCREMENT PRIMARY KEY, name varchar(50) NOT NULL, price decimal(10,2) NOT NULL, active bool NOT NULL) ENGINE=InnoDB');

$results = [];
foreach ($kinds as $kind) {
    foreach ($clients as $client) {
        $counts = [];
        foreach ([$fewer, $more] as $n) {
            // Retried: the shared test server's other users may kill this session meanwhile.
            for ($attempt = 1; ; $attempt++) {
                try {
                    $counts[$n] = countInstructions($url, "$client:$kind", $n, $keep, $jit, $cache);
                    break;
                } catch (\RuntimeException $e) {
                    if ($attempt === 3) {
                        throw $e;
                    }
                    \fwrite(\STDERR, "$client:$kind x $n failed, again: " . \substr($e->getMessage(), 0, 300) . "\n");
                }
            }
        }
        $results[$kind][$client] = (int) \round(($counts[$more] - $counts[$fewer]) / ($more - $fewer));
    }
}
$setup->query('DROP TABLE IF EXISTS ' . TABLE . '_items');
$setup->query('DROP TABLE IF EXISTS ' . TABLE . '_log');

foreach ($results as $kind => $byClient) {
    foreach ($byClient as $client => $perStatement) {
        $ratio = isset($byClient['mysqli']) && $client !== 'mysqli' ? \sprintf(' (%.2fx mysqli)', $perStatement / $byClient['mysqli']) : '';
        \printf("%-7s %-7s %8d instructions/statement%s\n", $kind, $client, $perStatement, $ratio);
    }
}
echo \json_encode($results), "\n";

function countInstructions(string $url, string $variant, int $count, ?string $keep, string $jit, int $cache): int
{
    $keepDir = $keep === null ? null : $keep . '/' . \str_replace(':', '-', $variant);
    $command = [
        ...Callgrind::php($jit, $keep !== null),
        __FILE__, '--child=' . $variant, '--count=' . $count, '--url=' . $url, '--cache=' . $cache,
    ];

    return Callgrind::count($command, $keepDir, (string) $count);
}

function connectMysqli(string $url): mysqli
{
    $parts = \parse_url($url);
    \assert(\is_array($parts));
    \parse_str((string) ($parts['query'] ?? ''), $query);

    return new mysqli((string) ($parts['host'] ?? 'localhost'), \urldecode((string) ($parts['user'] ?? '')), \urldecode((string) ($parts['pass'] ?? '')), \ltrim((string) ($parts['path'] ?? ''), '/'), (int) ($parts['port'] ?? 0), (string) ($query['unix_socket'] ?? ''));
}

function runChild(string $client, string $kind, int $count, string $url, int $cache): void
{
    $select = 'SELECT id, name, price, active FROM ' . TABLE . '_items WHERE id = ?';
    $cycle = [];
    for ($k = 0; $k <= $cache; $k++) {
        $cycle[] = "$select /* $k */";
    }
    $insert = 'INSERT INTO ' . TABLE . '_log (name, price, active) VALUES (?, ?, ?)';
    $sink = 0;
    if ($client === 'mysqli') {
        $db = connectMysqli($url);
        $stmt = $db->prepare($kind === 'insert' ? $insert : $select);
        \assert($stmt !== false);
        $loop = $kind === 'cycle'
            ? static function (int $n) use ($db, $cycle, &$sink): void {
                for ($i = 0; $i < $n; $i++) {
                    $id = $i % 1000 + 1;
                    $stmt = $db->prepare($cycle[$i % \count($cycle)]);
                    \assert($stmt !== false);
                    $stmt->bind_param('i', $id);
                    $stmt->execute();
                    $sink += \count((array) $stmt->get_result()->fetch_assoc());
                    $stmt->close();
                }
            }
            : ($kind === 'select'
            ? static function (int $n) use ($stmt, &$sink): void {
                for ($i = 0; $i < $n; $i++) {
                    $id = $i % 1000 + 1;
                    $stmt->bind_param('i', $id);
                    $stmt->execute();
                    $sink += \count((array) $stmt->get_result()->fetch_assoc());
                }
            }
            : static function (int $n) use ($stmt, &$sink): void {
                for ($i = 0; $i < $n; $i++) {
                    $name = 'item';
                    $price = '1.50';
                    $active = $i & 1;
                    $stmt->bind_param('ssi', $name, $price, $active);
                    $stmt->execute();
                    $sink += $stmt->insert_id;
                }
            });
    } else {
        // connection: one Connection, no pool (what the pool's checkout costs is the difference).
        $config = PoolConfig::fromUrl($url, maxSize: 1, statementCacheSize: $kind === 'cycle' ? $cache : 256);
        $pool = $client === 'connection' ? Connection::connect($config->connection) : new ConnectionPool($config);
        $loop = $kind === 'cycle'
            ? static function (int $n) use ($pool, $cycle, &$sink): void {
                for ($i = 0; $i < $n; $i++) {
                    $sink += \count((array) $pool->queryOne($cycle[$i % \count($cycle)], [$i % 1000 + 1]));
                }
            }
            : ($kind === 'select'
            ? static function (int $n) use ($pool, $select, &$sink): void {
                for ($i = 0; $i < $n; $i++) {
                    $sink += \count((array) $pool->queryOne($select, [$i % 1000 + 1]));
                }
            }
            : static function (int $n) use ($pool, $insert, &$sink): void {
                for ($i = 0; $i < $n; $i++) {
                    $sink += (int) $pool->query($insert, ['item', '1.50', $i & 1])->lastInsertId;
                }
            });
        if ($client === 'fiber') {
            $inner = $loop;
            $loop = static fn (int $n) => Async::run(static fn () => $inner($n))->await();
        }
    }
    $loop(WARM_UP);
    $loop($count);
}
