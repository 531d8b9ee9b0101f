<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Postgres;

/**
 * What the fake PostgreSQL server does to the first statement each session executes (an Execute
 * of the extended protocol or a simple Query); every other message is answered normally.
 */
enum FakeFault: string
{
    /** Answers everything normally. */
    case None = 'none';
    /**
     * The whole answer through ReadyForQuery, then FATAL 57P01 and the end of the stream, all
     * in one write: what a backend terminated right after answering sends.
     */
    case TerminateAfterAnswer = 'terminate-after-answer';
    /**
     * The rows and CommandComplete, then FATAL 57P01 instead of ReadyForQuery: a backend
     * terminated before the exchange ended (e.g. between Execute and Sync, before its commit).
     */
    case TerminateBeforeReady = 'terminate-before-ready';
    /** RowDescription and the first DataRow, then the end of the stream without a word. */
    case CloseMidResult = 'close-mid-result';
    /**
     * A normal answer; then, while the session is idle, FATAL 57P01, and the end of the stream
     * only a second later (a terminated backend closes its socket 0.3-1.7 ms after its FATAL:
     * stretched here so that a check in between is certain).
     */
    case TerminateWhileIdle = 'terminate-while-idle';
}
