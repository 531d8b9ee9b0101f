<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Execution;

use Bobbin\Jobs\Delivery;
use Bobbin\Jobs\RemoteError;
use Bobbin\Jobs\Task;
use Bobbin\Jobs\Wire\EncodedTask;
use Bobbin\Jobs\Wire\TaskOutcome;

/**
 * Runs one encoded task where it is: unserialize, run(), serialize the result. Everything the
 * task throws, and a result that cannot travel back, becomes a failure outcome; nothing escapes.
 * The same code runs in a job worker and in-process (PHP-FPM, a script), so both modes give the
 * same answers.
 *
 * The payload reaches here authenticated (JobSigner), and even so unserialize() may make objects
 * of the task's class and of what it declares (#[Carries]) only: an object of any other class
 * stays an inert __PHP_Incomplete_Class, its __wakeup()/__destruct() never run.
 */
final class TaskRunner
{
    /** Nesting deeper than this is refused by unserialize() (PHP's default has no bound). */
    public const MAX_DEPTH = 1024;

    public function run(EncodedTask $encoded): TaskOutcome
    {
        $started = \hrtime(true);
        try {
            $task = $this->unserialize($encoded);
            $result = $encoded->idempotencyKey !== null && $encoded->attempt > 0
                ? Delivery::during(new Delivery($encoded->idempotencyKey, $encoded->attempt), static fn (): mixed => $task->run())
                : $task->run();
        } catch (\Throwable $error) {
            return TaskOutcome::failure(RemoteError::fromThrowable($error), self::since($started));
        }
        $problem = SerializationInspector::findProblem($result, 'the result', CarriedClasses::of($encoded->class), $encoded->class);
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

    /**
     * The result of a task of $taskClass, as its caller reads it: only the classes the task
     * declares may be made.
     *
     * @throws \UnexpectedValueException when it is not a serialized value
     */
    public static function unserializeResult(string $taskClass, string $serialized): mixed
    {
        $result = @\unserialize($serialized, ['allowed_classes' => CarriedClasses::of($taskClass), 'max_depth' => self::MAX_DEPTH]);
        if ($result === false && $serialized !== 'b:0;') {
            throw new \UnexpectedValueException(\sprintf('The result of %s could not be unserialized', $taskClass));
        }

        return $result;
    }

    private function unserialize(EncodedTask $encoded): Task
    {
        $class = $encoded->class;
        // Autoloading the class the (authenticated) message names runs no code of the payload.
        if (!\class_exists($class)) {
            throw new UnknownTaskClassException(\sprintf('The class %s is not known in the job worker: make it autoloadable there (--job-bootstrap)', $class));
        }
        if (!\is_subclass_of($class, Task::class)) {
            throw new UnknownTaskClassException(\sprintf('The class %s is no task (Bobbin\\Jobs\\Task)', $class));
        }
        $task = @\unserialize($encoded->payload, ['allowed_classes' => [$class, ...CarriedClasses::of($class)], 'max_depth' => self::MAX_DEPTH]);
        if (!\is_object($task) || \strcasecmp($task::class, $class) !== 0 || !$task instanceof Task) {
            throw new UnknownTaskClassException(\sprintf('The payload for %s is not a task of that class', $class));
        }

        return $task;
    }

    private static function since(int|float $started): float
    {
        return (\hrtime(true) - $started) / 1e9;
    }
}
