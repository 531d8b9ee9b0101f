<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Nats;

use Bobbin\Jobs\JobProtocolException;
use Bobbin\Jobs\Wire\EncodedTask;
use Bobbin\Jobs\Wire\JobWire;
use Bobbin\Jobs\Wire\ReplyKind;
use Bobbin\Jobs\Wire\TaskOutcome;

/**
 * The bodies of the jobs' NATS messages (each signed by JobSigner before it is published). A
 * message is already framed, so each is one JobWire body: 'T' (the task), 'S', 'R', 'F', 'C'
 * exactly as on the local socket, plus what only a remote worker needs to say:
 *
 *     'A' u32 pid, text        it holds the task and is alive (at once, then every heartbeat)
 *     'K' message              the task ran past its time limit (its job worker was killed)
 *     'E' message              it could not run the task at all
 *     'B'                      it has no free slot after all: the task was not taken, offer it again
 *
 * Pure: strings in, strings out.
 */
final class RemoteWire
{
    private const ALIVE = 'A';
    private const TIMED_OUT = 'K';
    private const REFUSED = 'E';
    private const BUSY = 'B';

    private function __construct()
    {
    }

    public static function task(EncodedTask $task): string
    {
        return JobWire::task($task);
    }

    /** @throws JobProtocolException */
    public static function decodeTask(string $payload): EncodedTask
    {
        return JobWire::decodeTask($payload);
    }

    public static function alive(int $pid, string $who): string
    {
        return self::ALIVE . \pack('V', $pid) . $who;
    }

    public static function started(int $pid): string
    {
        return JobWire::started($pid);
    }

    public static function outcome(TaskOutcome $outcome): string
    {
        return JobWire::outcome($outcome);
    }

    public static function crashed(string $reason): string
    {
        return JobWire::crashed($reason);
    }

    public static function timedOut(string $message): string
    {
        return self::TIMED_OUT . $message;
    }

    public static function refused(string $message): string
    {
        return self::REFUSED . $message;
    }

    public static function busy(): string
    {
        return self::BUSY;
    }

    /** @throws JobProtocolException */
    public static function decodeReply(string $payload): RemoteReply
    {
        switch ($payload[0] ?? '') {
            case self::ALIVE:
                if (\strlen($payload) < 5) {
                    throw new JobProtocolException('An alive message without a pid');
                }
                $pid = \unpack('V', $payload, 1);
                \assert($pid !== false);

                return new RemoteReply(RemoteReplyKind::Alive, $pid[1], text: \substr($payload, 5));
            case self::TIMED_OUT:
                return new RemoteReply(RemoteReplyKind::TimedOut, text: \substr($payload, 1));
            case self::REFUSED:
                return new RemoteReply(RemoteReplyKind::Refused, text: \substr($payload, 1));
            case self::BUSY:
                return new RemoteReply(RemoteReplyKind::Busy);
        }
        $reply = JobWire::decodeReply($payload);

        return match ($reply->kind) {
            ReplyKind::Started => new RemoteReply(RemoteReplyKind::Started, $reply->workerPid),
            ReplyKind::Outcome => new RemoteReply(RemoteReplyKind::Outcome, outcome: $reply->outcome),
            ReplyKind::Crashed => new RemoteReply(RemoteReplyKind::Crashed, text: $reply->reason),
        };
    }
}
