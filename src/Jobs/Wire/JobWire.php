<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Wire;

use Bobbin\Jobs\JobProtocolException;
use Bobbin\Jobs\RemoteError;

/**
 * The messages of one task's connection, each one frame (FrameDecoder), kind first:
 *
 *     caller → worker  'T' f64 time limit, u16 class length, class, serialized task
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

    private function __construct()
    {
    }

    public static function taskFrame(EncodedTask $task): string
    {
        return FrameDecoder::frame(self::TASK . \pack('ev', $task->timeLimit, \strlen($task->class)) . $task->class . $task->payload);
    }

    public static function startedFrame(int $workerPid): string
    {
        return FrameDecoder::frame(self::STARTED . \pack('V', $workerPid));
    }

    public static function outcomeFrame(TaskOutcome $outcome): string
    {
        if ($outcome->error !== null) {
            return FrameDecoder::frame(self::FAILURE . \pack('e', $outcome->runSeconds) . \json_encode(
                $outcome->error->toArray(),
                \JSON_THROW_ON_ERROR | \JSON_INVALID_UTF8_SUBSTITUTE | \JSON_UNESCAPED_SLASHES | \JSON_UNESCAPED_UNICODE,
            ));
        }

        return FrameDecoder::frame(self::RESULT . \pack('e', $outcome->runSeconds) . $outcome->result);
    }

    public static function crashedFrame(string $reason): string
    {
        return FrameDecoder::frame(self::CRASHED . $reason);
    }

    /** @throws JobProtocolException */
    public static function decodeTask(string $payload): EncodedTask
    {
        if (\strlen($payload) < 11 || $payload[0] !== self::TASK) {
            throw new JobProtocolException('Expected a task frame');
        }
        $header = \unpack('etimeLimit/vclassLength', $payload, 1);
        \assert($header !== false);
        $classLength = $header['classLength'];
        if (\strlen($payload) < 11 + $classLength || !\is_finite($header['timeLimit']) || $header['timeLimit'] < 0) {
            throw new JobProtocolException('A task frame with a bad header');
        }

        return new EncodedTask(\substr($payload, 11, $classLength), \substr($payload, 11 + $classLength), $header['timeLimit']);
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
}
