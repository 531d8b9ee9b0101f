<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Execution;

use Bobbin\Jobs\RemoteError;
use Bobbin\Jobs\Task;
use Bobbin\Jobs\Wire\EncodedTask;
use Bobbin\Jobs\Wire\TaskOutcome;

/**
 * Runs one encoded task where it is: unserialize, run(), serialize the result. Everything the
 * task throws, and a result that cannot travel back, becomes a failure outcome; nothing escapes.
 * The same code runs in a job worker and in-process (PHP-FPM, a script), so both modes give the
 * same answers.
 */
final class TaskRunner
{
    public function run(EncodedTask $encoded): TaskOutcome
    {
        $started = \hrtime(true);
        try {
            $task = $this->unserialize($encoded);
            $result = $task->run();
        } catch (\Throwable $error) {
            return TaskOutcome::failure(RemoteError::fromThrowable($error), self::since($started));
        }
        $problem = SerializationInspector::findProblem($result, 'the result');
        try {
            if ($problem !== null) {
                throw new ResultNotSerializableException(\sprintf(
                    'The result of %s cannot be sent back: %s %s',
                    $encoded->class,
                    $problem[0],
                    $problem[1],
                ));
            }
            try {
                $serialized = \serialize($result);
            } catch (\Throwable $refused) {
                throw new ResultNotSerializableException(\sprintf('The result of %s cannot be sent back: %s', $encoded->class, $refused->getMessage()), 0, $refused);
            }
        } catch (ResultNotSerializableException $error) {
            return TaskOutcome::failure(RemoteError::fromThrowable($error), self::since($started));
        }

        return TaskOutcome::success($serialized, self::since($started));
    }

    private function unserialize(EncodedTask $encoded): Task
    {
        $task = @\unserialize($encoded->payload);
        if ($task instanceof \__PHP_Incomplete_Class) {
            throw new UnknownTaskClassException(\sprintf(
                'The class %s is not known in the job worker: make it autoloadable there (--job-bootstrap)',
                $encoded->class,
            ));
        }
        if (!$task instanceof Task) {
            throw new UnknownTaskClassException(\sprintf('The payload for %s is not a task that can be unserialized here', $encoded->class));
        }

        return $task;
    }

    private static function since(int|float $started): float
    {
        return (\hrtime(true) - $started) / 1e9;
    }
}
