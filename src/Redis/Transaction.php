<?php

declare(strict_types=1);

namespace Bobbin\Redis;

use Bobbin\Async\Cancellation;
use Bobbin\Async\OwnsResources;
use Bobbin\Redis\Exception\CommandException;
use Bobbin\Redis\Exception\RedisException;
use Bobbin\Redis\Exception\TransactionConflictException;
use Bobbin\Redis\Exception\TransactionException;
use Bobbin\Redis\Internal\ErrorFactory;
use Bobbin\Redis\Internal\ErrorReply;
use Closure;

/**
 * MULTI/EXEC on one dedicated connection, inside a callback. Commands run through the
 * transaction's Executor methods run at once, after the WATCH (the reads a decision depends on);
 * queue() collects the commands of the transaction itself, sent as MULTI … EXEC in one write when
 * the callback returns. A WATCHed key changed meanwhile: nothing queued ran, and the caller gets
 * a TransactionConflictException to run it again. Throwing from the callback sends nothing
 * queued. Redis has no rollback: a queued command that fails when it runs (WRONGTYPE) does not
 * undo the others; its error is in its place among the results.
 */
final class Transaction implements Executor
{
    use OwnsResources;

    use ExecutesCommands;

    /** @var list<array<int, mixed>> */
    private array $queued = [];
    private bool $active = true;

    private function __construct(private readonly Connection $connection)
    {
    }

    /**
     * @internal use Client::transaction()
     * @param Closure(Transaction): mixed $work
     * @param list<string> $watch
     * @return list<mixed> EXEC's replies, one per queued command (a CommandException object for one that failed)
     */
    public static function run(Connection $connection, Closure $work, array $watch, ?Cancellation $cancellation): array
    {
        if ($watch !== []) {
            $connection->execute(['WATCH', ...$watch], $cancellation);
        }
        $transaction = new self($connection);
        try {
            $work($transaction);
        } catch (\Throwable $e) {
            $transaction->active = false;
            if ($watch !== []) {
                self::unwatch($connection);
            }
            throw $e;
        }
        $transaction->active = false;
        $queued = $transaction->queued;
        if ($queued === []) {
            if ($watch !== []) {
                self::unwatch($connection);
            }

            return [];
        }
        // Never cancelled: an EXEC abandoned halfway would leave the outcome unknown.
        $replies = $connection->pipeline([['MULTI'], ...$queued, ['EXEC']]);
        $exec = \array_pop($replies);
        if ($exec instanceof CommandException) {
            throw new TransactionException(\sprintf('Redis refused the transaction (nothing ran): %s', $exec->getMessage()), 0, self::firstError($replies) ?? $exec);
        }
        if ($exec === null) {
            throw new TransactionConflictException('A watched key changed before EXEC: nothing queued ran; run the transaction again');
        }
        if (!\is_array($exec)) {
            throw new TransactionException('EXEC answered with something else than a list of replies');
        }
        $results = [];
        foreach (\array_values($exec) as $i => $reply) {
            $results[] = $reply instanceof ErrorReply || \is_array($reply) ? ErrorFactory::inPlace($reply, $queued[$i] ?? []) : $reply;
        }

        return $results;
    }

    /** Runs at once, outside MULTI (after the WATCH): the reads the transaction depends on. */
    public function execute(array $command, ?Cancellation $cancellation = null): mixed
    {
        $this->assertActive();

        return $this->connection->execute($command, $cancellation);
    }

    /** Queues a command of the transaction; it runs at EXEC, when the callback has returned. */
    public function queue(string $name, mixed ...$arguments): void
    {
        $this->assertActive();
        $this->queued[] = [$name, ...\array_values($arguments)];
    }

    public function protocol(): int
    {
        return $this->connection->protocol();
    }

    public function isActive(): bool
    {
        return $this->active;
    }

    private function assertActive(): void
    {
        if (!$this->active) {
            throw new TransactionException('The transaction is over: use it only inside its callback');
        }
    }

    /** @param list<mixed> $replies */
    private static function firstError(array $replies): ?CommandException
    {
        foreach ($replies as $reply) {
            if ($reply instanceof CommandException) {
                return $reply;
            }
        }

        return null;
    }

    private static function unwatch(Connection $connection): void
    {
        try {
            $connection->execute(['UNWATCH']);
        } catch (RedisException) {
            $connection->close(); // its WATCH state is unknown: never lend it again
        }
    }
}
