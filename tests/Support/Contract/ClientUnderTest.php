<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Contract;

use Bobbin\Async\Cancellation;

/**
 * One client as the contract tests (tests/Integration/Contract) see it: a few calls spelled in
 * its own protocol, each taking a Cancellation, and a look at the server's state over a session
 * of its own, outside the code under test. A write marks a key (a row, a Redis key, a Tarantool
 * tuple, a message a NATS responder handled) so a test can tell whether it ran on the server.
 *
 * "Pooled" calls go through the client's pool when it has one (PostgreSQL, MySQL, Tarantool, and
 * the Redis client's pool of dedicated connections): echo(), sleep() and slowWrite().
 */
interface ClientUnderTest
{
    /** Marks $key on the server (an INSERT, a SET, a Tarantool insert, a request its responder records). */
    public function write(string $key, ?Cancellation $cancellation = null): void;

    /** Whether $key was marked, seen over a session of its own. */
    public function written(string $key): bool;

    /** A pooled read that answers $value (the server's own echo). */
    public function echo(string $value, ?Cancellation $cancellation = null): string;

    /** A pooled read that runs $seconds on the server (pg_sleep, SLEEP, fiber.sleep, BLPOP, a slow responder). */
    public function sleep(float $seconds, ?Cancellation $cancellation = null): void;

    /** A pooled write that marks $key after $seconds on the server. */
    public function slowWrite(string $key, float $seconds, ?Cancellation $cancellation = null): void;

    /** Ends, from the server's side, the sessions running a call that mentions $key (or the server itself, started again). */
    public function endSessionsRunning(string $key): void;

    /** Closes the client and removes what it created on the server. */
    public function close(): void;
}
