<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Execution;

use Bobbin\Jobs\DurableTask;
use Bobbin\Jobs\Task;
use Bobbin\Jobs\TaskNotSerializableException;
use Bobbin\Jobs\TimeLimitedTask;
use Bobbin\Jobs\Wire\EncodedTask;

/** Turns a task into what travels, or refuses it at once, naming the value that cannot travel. */
final class TaskEncoder
{
    private function __construct()
    {
    }

    /**
     * @param float $defaultTimeLimit seconds, for a task that does not set its own (0: none)
     * @throws TaskNotSerializableException
     */
    public static function encode(Task $task, float $defaultTimeLimit): EncodedTask
    {
        $class = $task::class;
        $problem = SerializationInspector::findProblem($task, $class, [$class, ...CarriedClasses::of($class)], $class);
        if ($problem !== null) {
            throw new TaskNotSerializableException($class, $problem[0], $problem[1]);
        }
        try {
            $payload = \serialize($task);
        } catch (\Throwable $refused) {
            throw new TaskNotSerializableException($class, $class, 'cannot be serialized: ' . $refused->getMessage(), $refused);
        }
        $timeLimit = $task instanceof TimeLimitedTask ? $task->timeLimit() : $defaultTimeLimit;
        if (!\is_finite($timeLimit) || $timeLimit < 0) {
            throw new \InvalidArgumentException(\sprintf('The time limit of %s must be 0 (none) or a positive number of seconds', $class));
        }

        return new EncodedTask($class, $payload, $timeLimit, $task instanceof DurableTask ? $task->idempotencyKey() : null);
    }
}
