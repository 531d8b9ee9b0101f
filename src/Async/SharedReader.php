<?php

declare(strict_types=1);

namespace Bobbin\Async;

/**
 * The answers of one pipelined connection (Redis, Tarantool, IPC) read by the fibers waiting for
 * them, not by a reader fiber: the first waiter reads for everybody, hands each answer it finds
 * to its fiber, and once its own answer is in passes the reading to the fiber that has waited
 * longest; with nobody waiting the reading lapses.
 *
 * A reader fiber would cost a fiber switch per answer and a fiber per idle-to-busy transition; a
 * lone caller here pays neither, and a crowd one read per batch. Answers are settled while the
 * source parses (deliver()) and their fibers resumed after each read, one after another
 * (KeyedWaiters): what they send meanwhile joins one write, since the reading is still taken. The
 * next reader is resumed with a turn token instead of an answer, and from then on its answer is
 * kept for it like the reader's own, so no answer can pass it by.
 *
 * A connection is not reused once broken: after failAll() every wait throws at once, the fiber
 * handed the reading too.
 *
 * Properties written per request are untyped (@var) and errors leave through catch and rethrow,
 * not finally: PHP 8.2's tracing JIT writes a typed property through a checking helper and keeps
 * off a path with finally (bench/tarantool/reference.php).
 */
final class SharedReader implements ReplySink
{
    private readonly KeyedWaiters $waiters;
    /** Handed to a waiting fiber instead of an answer: it reads now (never an answer: not the source's). */
    private readonly \stdClass $turn;
    /** @var bool */
    private $reading = false;
    /** @var int the key the reader reads for; 0 when nobody reads */
    private $readerKey = 0;
    /** @var bool */
    private $readerDone = false;
    /** @var mixed */
    private $readerAnswer = null;
    private ?\Throwable $failure = null;

    public function __construct()
    {
        $this->waiters = new KeyedWaiters();
        $this->turn = new \stdClass();
    }

    /**
     * Waits for the answer to $key (in {main}: runs the loop meanwhile), reading $source while
     * this caller has the reading; throws what the source, failAll() or $cancellation throw.
     */
    public function await(int $key, ?Cancellation $cancellation, ReplySource $source): mixed
    {
        if ($this->failure !== null) {
            throw $this->failure;
        }
        if ($this->reading) {
            $answer = $this->waiters->wait($key, $cancellation);
            if ($answer !== $this->turn) {
                return $answer;
            }
            $this->throwIfBrokenMeanwhile();
        } else {
            $this->reading = true;
            $this->readerKey = $key;
        }
        $first = true;
        try {
            while (!$this->readerDone) {
                $source->readReplies($cancellation, $first);
                $first = false;
                $this->waiters->runSettled();
            }
        } catch (\Throwable $e) {
            $this->readerDone = false;
            $this->readerAnswer = null;
            $this->handOff();
            throw $e;
        }
        $answer = $this->readerAnswer;
        $this->readerDone = false;
        $this->readerAnswer = null;
        $this->handOff();

        return $answer;
    }

    /**
     * From the source's readReplies(): the answer to $key goes to its waiter, resumed after the
     * read (dropped when nobody waits for $key any more: its wait was cancelled).
     */
    public function deliver(int $key, mixed $answer): void
    {
        if ($key === $this->readerKey) {
            $this->readerAnswer = $answer;
            $this->readerDone = true;

            return;
        }
        $this->waiters->settle($key, $answer);
    }

    /** The connection is gone: every waiter gets $error (the reader from its source), and every later wait. */
    public function failAll(\Throwable $error): void
    {
        $this->failure ??= $error;
        $this->waiters->failAll($error);
    }

    /** Whether somebody reads (and so waits): a request made now is not alone. */
    public function isReading(): bool
    {
        return $this->reading;
    }

    /** Whether a fiber other than the reader waits for $key. */
    public function isWaiting(int $key): bool
    {
        return $this->waiters->isWaiting($key);
    }

    /** Handed the reading, and the connection broke while the turn was on its way: nothing to read. */
    private function throwIfBrokenMeanwhile(): void
    {
        $failure = $this->failure;
        if ($failure !== null) {
            $this->handOff();
            throw $failure;
        }
    }

    /** The reading passes to the caller waiting longest, or lapses. */
    private function handOff(): void
    {
        $next = $this->waiters->oldestKey();
        if ($next === null) {
            $this->reading = false;
            $this->readerKey = 0;

            return;
        }
        $this->readerKey = $next;
        $this->waiters->settle($next, $this->turn);
    }
}
