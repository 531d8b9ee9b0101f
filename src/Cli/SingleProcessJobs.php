<?php

declare(strict_types=1);

namespace Bobbin\Cli;

use Bobbin\Jobs\Jobs;
use Bobbin\Process\JobMaster;
use Bobbin\Process\JobPoolConfig;
use Bobbin\Process\LateJobMaster;
use Bobbin\Process\MasterFailedException;
use Psr\Log\LoggerInterface;

/**
 * The job workers of `serve --single-process`: their supervisor forked at start (before the
 * application loads and before the server listens), or — --job-workers left at auto — started
 * at the first task as a program of its own (LateJobMaster; docs/JOBS.md). Either way the
 * process's Jobs::shared() sends its tasks to them.
 */
final class SingleProcessJobs
{
    private function __construct()
    {
    }

    /**
     * --single-process with job workers: their supervisor is forked now, or (left at auto, in a
     * private socket directory, with $late settings) started at the first task; the tasks of this
     * process go to them.
     *
     * @param array{logLevel: string, memoryLimit: string}|null $late
     * @throws UsageException|StartupException
     */
    public static function start(?JobPoolConfig $pool, ?array $late, LoggerInterface $logger): JobMaster|LateJobMaster|null
    {
        if ($pool === null) {
            return null;
        }
        if (!\function_exists('pcntl_fork') || !\function_exists('posix_kill')) {
            throw new UsageException('job workers need the pcntl and posix extensions; use --job-workers=0');
        }
        if ($late !== null && $pool->startAtFirstTask && $pool->ownsDirectory) {
            $master = LateJobMaster::create($pool, self::jobMasterProgram(), $late, $logger);
            if ($master !== null) {
                Jobs::installLazily($master->jobs(...));

                return $master;
            }
        }
        try {
            $master = JobMaster::start($pool, $logger);
        } catch (MasterFailedException $failure) {
            throw new StartupException($failure->getMessage(), 0, $failure);
        }
        Jobs::install(Jobs::localPool($pool->socketPath, $pool->keys, $pool->client));

        return $master;
    }

    /**
     * PHP's arguments for `bin/bobbin job-master`: the options this PHP runs with (opcache and the
     * JIT, and the user's own `-d`), the script that was run, the command.
     *
     * @return list<string>
     */
    private static function jobMasterProgram(): array
    {
        $options = OpcacheRelaunch::phpOptionsOf(OpcacheRelaunch::ownCommandLine(), OpcacheRelaunch::ownArgumentCount());
        $script = (string) ($_SERVER['SCRIPT_FILENAME'] ?? '');

        return [...$options, (string) (\realpath($script) ?: $script), LateJobMaster::COMMAND];
    }
}
