<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Wire;

use Bobbin\Jobs\JobProtocolException;
use Bobbin\Jobs\RemoteError;

/**
 * The messages about one task, kind first (a body; JobSigner signs it, and on a socket FrameDecoder frames it):
 *
 *     caller → worker  'T' 16-byte task id, f64 time limit, u16 class length, class,
 *                          u8 flags (1: durable), [u16 key length, key, u32 attempt: when durable],
 *                          serialized task
 *     worker → caller  'S' u32 pid                      it took the task and runs it now
 *                      'R' f64 run seconds, serialized result
 *                      'F' f64 run seconds, JSON of the RemoteError
 *                      'C' reason                       it is dying mid-task (its last words)
 *
 * Numbers are little-endian. Pure: strings in, strings out, tested byte by byte.
 */
final class JobWire
{
    private const TASK = 'T';
    private const STARTED = 'S';
    private const RESULT = 'R';
    private const FAILURE = 'F';
    private const CRASHED = 'C';
    private const DURABLE = 1;
    /** Kind, id, time limit, class length, flags. */
    private const TASK_HEADER = 1 + EncodedTask::ID_BYTES + 8 + 2 + 1;

    private function __construct()
    {
    }

    public static function task(EncodedTask $task): string
    {
        $durable = $task->idempotencyKey === null ? \pack('C', 0) : \pack('Cv', self::DURABLE, \strlen($task->idempotencyKey)) . $task->idempotencyKey . \pack('V', $task->attempt);

        return self::TASK . $task->id . \pack('ev', $task->timeLimit, \strlen($task->class)) . $task->class . $durable . $task->payload;
    }

    public static function started(int $workerPid): string
    {
        return self::STARTED . \pack('V', $workerPid);
    }

    public static function outcome(TaskOutcome $outcome): string
    {
        if ($outcome->error !== null) {
            return self::FAILURE . \pack('e', $outcome->runSeconds) . \json_encode(
                $outcome->error->toArray(),
                \JSON_THROW_ON_ERROR | \JSON_INVALID_UTF8_SUBSTITUTE | \JSON_UNESCAPED_SLASHES | \JSON_UNESCAPED_UNICODE,
            );
        }

        return self::RESULT . \pack('e', $outcome->runSeconds) . $outcome->result;
    }

    public static function crashed(string $reason): string
    {
        return self::CRASHED . $reason;
    }

    /** @throws JobProtocolException */
    public static function decodeTask(string $payload): EncodedTask
    {
        if (\strlen($payload) < self::TASK_HEADER || $payload[0] !== self::TASK) {
            throw new JobProtocolException('Expected a task frame');
        }
        $id = \substr($payload, 1, EncodedTask::ID_BYTES);
        $header = \unpack('etimeLimit/vclassLength', $payload, 1 + EncodedTask::ID_BYTES);
        \assert($header !== false);
        $classLength = $header['classLength'];
        $offset = self::TASK_HEADER - 1 + $classLength;
        if (\strlen($payload) <= $offset || !\is_finite($header['timeLimit']) || $header['timeLimit'] < 0) {
            throw new JobProtocolException('A task frame with a bad header');
        }
        $class = \substr($payload, self::TASK_HEADER - 1, $classLength);
        $flags = \ord($payload[$offset++]);
        $key = null;
        $attempt = 0;
        if ($flags === self::DURABLE) {
            if (\strlen($payload) < $offset + 2) {
                throw new JobProtocolException('A durable task frame without its key');
            }
            $keyLength = self::number('v', $payload, $offset);
            if (\strlen($payload) < $offset + 2 + $keyLength + 4) {
                throw new JobProtocolException('A durable task frame with a bad key');
            }
            $key = \substr($payload, $offset + 2, $keyLength);
            $attempt = self::number('V', $payload, $offset + 2 + $keyLength);
            $offset += 2 + $keyLength + 4;
        } elseif ($flags !== 0) {
            throw new JobProtocolException(\sprintf('A task frame with unknown flags %d', $flags));
        }

        return new EncodedTask($class, \substr($payload, $offset), $header['timeLimit'], $key, $id, $attempt);
    }

    /** @throws JobProtocolException */
    public static function decodeReply(string $payload): Reply
    {
        $kind = $payload[0] ?? '';
        switch ($kind) {
            case self::STARTED:
                if (\strlen($payload) !== 5) {
                    break;
                }
                $pid = \unpack('V', $payload, 1);
                \assert($pid !== false);

                return new Reply(ReplyKind::Started, $pid[1]);
            case self::RESULT:
            case self::FAILURE:
                if (\strlen($payload) < 9) {
                    break;
                }
                $run = \unpack('e', $payload, 1);
                \assert($run !== false);
                $seconds = (float) $run[1];
                if ($kind === self::RESULT) {
                    return new Reply(ReplyKind::Outcome, outcome: TaskOutcome::success(\substr($payload, 9), $seconds));
                }
                try {
                    $error = \json_decode(\substr($payload, 9), true, 64, \JSON_THROW_ON_ERROR);
                } catch (\JsonException $e) {
                    throw new JobProtocolException('A failure frame whose error is not JSON: ' . $e->getMessage());
                }
                if (!\is_array($error)) {
                    break;
                }

                return new Reply(ReplyKind::Outcome, outcome: TaskOutcome::failure(RemoteError::fromArray($error), $seconds));
            case self::CRASHED:
                return new Reply(ReplyKind::Crashed, reason: \substr($payload, 1));
        }

        throw new JobProtocolException(\sprintf('An unexpected frame from a job worker (kind %s, %d bytes)', \json_encode($kind), \strlen($payload)));
    }

    private static function number(string $format, string $payload, int $offset): int
    {
        $value = \unpack($format, $payload, $offset);
        \assert($value !== false);

        return (int) $value[1];
    }
}
