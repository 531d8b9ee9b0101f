<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Contract;

use Bobbin\Async;
use Bobbin\Ipc;
use Bobbin\Jobs;
use Bobbin\Mysql\Exception as Mysql;
use Bobbin\Nats\Exception as Nats;
use Bobbin\Pool;
use Bobbin\Postgres\Exception as Postgres;
use Bobbin\Redis\Exception as Redis;
use Bobbin\Tarantool\Exception as Tarantool;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * The shared markers in src/Async (docs/CLIENTS.md section 4): a caller catches "a timeout" or
 * "run the transaction again" once, whichever client threw. The table below is each client's
 * part; a new client adds its row. The second test finds exception classes by the names the
 * clients use, so a new class named like a timeout or a lost connection cannot skip its marker.
 */
final class ClientExceptionMarkersTest extends TestCase
{
    /** @var array<string, array<class-string, list<class-string>>> client => marker => classes */
    private const TABLE = [
        'PostgreSQL' => [
            Async\ConnectionLost::class => [Postgres\ConnectionLostException::class],
            Async\Timeout::class => [Postgres\ConnectTimeoutException::class, Postgres\QueryTimeoutException::class, Postgres\PoolTimeoutException::class],
            Async\PoolTimeout::class => [Postgres\PoolTimeoutException::class],
            Async\Retryable::class => [Postgres\RetryableException::class, Postgres\SerializationFailureException::class, Postgres\DeadlockException::class],
            Async\UniqueViolation::class => [Postgres\UniqueViolationException::class],
            Async\OutcomeUnknown::class => [Postgres\ConnectionLostException::class, Postgres\OutcomeUnknownException::class],
        ],
        'MySQL' => [
            Async\ConnectionLost::class => [Mysql\ConnectionLostException::class],
            Async\Timeout::class => [Mysql\ConnectTimeoutException::class, Mysql\QueryTimeoutException::class, Mysql\PoolTimeoutException::class],
            Async\PoolTimeout::class => [Mysql\PoolTimeoutException::class],
            Async\Retryable::class => [Mysql\RetryableException::class, Mysql\DeadlockException::class, Mysql\LockWaitTimeoutException::class],
            Async\UniqueViolation::class => [Mysql\UniqueViolationException::class],
            Async\OutcomeUnknown::class => [Mysql\ConnectionLostException::class, Mysql\OutcomeUnknownException::class],
        ],
        'Redis' => [
            Async\ConnectionLost::class => [Redis\ConnectionLostException::class],
            Async\Timeout::class => [Redis\ConnectTimeoutException::class, Redis\CommandTimeoutException::class, Redis\PoolTimeoutException::class],
            Async\PoolTimeout::class => [Redis\PoolTimeoutException::class],
            Async\Retryable::class => [Redis\RetryableException::class, Redis\TransactionConflictException::class],
        ],
        'Tarantool' => [
            Async\ConnectionLost::class => [Tarantool\ConnectionLostException::class],
            Async\Timeout::class => [Tarantool\ConnectTimeoutException::class, Tarantool\RequestTimeoutException::class, Tarantool\PoolTimeoutException::class],
            Async\PoolTimeout::class => [Tarantool\PoolTimeoutException::class],
            Async\Retryable::class => [Tarantool\RetryableException::class, Tarantool\TransactionConflictException::class],
            Async\UniqueViolation::class => [Tarantool\UniqueViolationException::class],
            // A write cancelled after it left, with no answer in the settle time (CLIENTS.md section 5).
            Async\OutcomeUnknown::class => [Tarantool\ConnectionLostException::class, Async\CancelledOutcomeUnknownException::class],
        ],
        'NATS' => [
            Async\ConnectionLost::class => [Nats\ConnectionLostException::class],
            Async\Timeout::class => [Nats\ConnectTimeoutException::class, Nats\RequestTimeoutException::class],
            // A request cancelled after its PUB left (CLIENTS.md section 5).
            Async\OutcomeUnknown::class => [Nats\ConnectionLostException::class, Async\CancelledOutcomeUnknownException::class],
        ],
        'IPC' => [
            Async\ConnectionLost::class => [Ipc\ConnectionLostException::class],
            Async\Timeout::class => [Ipc\ConnectTimeoutException::class],
        ],
        'Jobs' => [
            Async\Timeout::class => [Jobs\JobTimeoutException::class],
        ],
        'the shared pool and the loop' => [
            Async\PoolTimeout::class => [Pool\PoolTimeoutException::class],
            Async\Timeout::class => [Pool\PoolTimeoutException::class, Async\TimeoutException::class],
        ],
    ];

    /**
     * Names that look like a marker's but mean something else, with the reason.
     *
     * @var array<class-string, string>
     */
    private const NOT_BY_NAME = [
        // The server's own lock wait limit, reported as an error: run the transaction again.
        Mysql\LockWaitTimeoutException::class => Async\Retryable::class,
    ];

    /** @return iterable<string, array{class-string, class-string}> */
    public static function markedClasses(): iterable
    {
        foreach (self::TABLE as $client => $markers) {
            foreach ($markers as $marker => $classes) {
                foreach ($classes as $class) {
                    yield \sprintf('%s: %s is %s', $client, self::short($class), self::short($marker)) => [$class, $marker];
                }
            }
        }
    }

    /** @param class-string $class @param class-string $marker */
    #[DataProvider('markedClasses')]
    public function testEachClientsExceptionImplementsTheSharedMarker(string $class, string $marker): void
    {
        self::assertTrue(\is_a($class, $marker, true), \sprintf('%s should implement %s', $class, $marker));
    }

    /** @return iterable<string, array{class-string, class-string}> */
    public static function classesNamedLikeAMarker(): iterable
    {
        $suffixes = [
            'ConnectionLostException' => Async\ConnectionLost::class,
            'PoolTimeoutException' => Async\PoolTimeout::class,
            'TimeoutException' => Async\Timeout::class,
            'UniqueViolationException' => Async\UniqueViolation::class,
            'RetryableException' => Async\Retryable::class,
            'DeadlockException' => Async\Retryable::class,
            'SerializationFailureException' => Async\Retryable::class,
            'TransactionConflictException' => Async\Retryable::class,
        ];
        $src = \dirname(__DIR__, 3) . '/src';
        $files = new \RecursiveIteratorIterator(new \RecursiveDirectoryIterator($src, \FilesystemIterator::SKIP_DOTS));
        foreach ($files as $file) {
            \assert($file instanceof \SplFileInfo);
            $name = $file->getBasename('.php');
            foreach ($suffixes as $suffix => $marker) {
                if (!\str_ends_with($name, $suffix)) {
                    continue;
                }
                $relative = \substr($file->getPathname(), \strlen($src) + 1, -4);
                /** @var class-string $class */
                $class = 'Bobbin\\' . \str_replace('/', '\\', $relative);
                yield $class => [$class, self::NOT_BY_NAME[$class] ?? $marker];
                break;
            }
        }
    }

    /** @param class-string $class @param class-string $marker */
    #[DataProvider('classesNamedLikeAMarker')]
    public function testEveryExceptionNamedLikeAMarkerImplementsIt(string $class, string $marker): void
    {
        self::assertTrue(\is_a($class, $marker, true), \sprintf('%s should implement %s (docs/CLIENTS.md section 4)', $class, $marker));
    }

    public function testAPoolTimeoutIsATimeoutAndALostConnectionAnUnknownOutcome(): void
    {
        self::assertTrue(\is_a(Async\PoolTimeout::class, Async\Timeout::class, true));
        self::assertTrue(\is_a(Async\ConnectionLost::class, Async\OutcomeUnknown::class, true));
    }

    public function testTheMarkersAreInterfacesSoExistingCatchSitesKeepWorking(): void
    {
        foreach ([Async\ConnectionLost::class, Async\Timeout::class, Async\PoolTimeout::class, Async\Retryable::class, Async\UniqueViolation::class] as $marker) {
            self::assertTrue(\interface_exists($marker), $marker);
        }
        // The per-client names callers already catch stay what they were.
        self::assertTrue(\interface_exists(Postgres\RetryableException::class));
        self::assertTrue(\interface_exists(Mysql\RetryableException::class));
        self::assertTrue(\is_a(Tarantool\RetryableException::class, Tarantool\QueryException::class, true));
        self::assertTrue(\is_a(Nats\ConnectTimeoutException::class, Nats\ConnectException::class, true));
        self::assertTrue(\is_a(Ipc\ConnectTimeoutException::class, Ipc\IpcException::class, true));
    }

    private static function short(string $class): string
    {
        return \substr($class, (int) \strrpos($class, '\\') + 1);
    }
}
