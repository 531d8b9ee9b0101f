<?php

declare(strict_types=1);

namespace Bobbin\Cli;

use Bobbin\Jobs\Security\JobKeys;
use Bobbin\Log\RateLimitedLogger;
use Bobbin\Log\StderrLogger;
use Bobbin\Process\JobMaster;
use Bobbin\Process\JobPoolConfig;
use Bobbin\Process\LateJobMaster;

/**
 * `bin/bobbin job-master`, internal: the job workers' supervisor of a single
 * serving process, started by it at its first task (Bobbin\Process\LateJobMaster) as a fresh
 * program holding nothing of it but their channel, its standard input. Reads the pool's settings and key
 * from the channel (one JSON line; the channel is a socket pair only the serving process holds
 * the other end of), then supervises until the serving process stops it or is gone.
 */
final class JobMasterCommand
{
    public const NAME = LateJobMaster::COMMAND;

    /** @param list<string> $arguments */
    public function run(array $arguments): int
    {
        // FreshProcess held every signal across exec; handle those the supervisor waits for.
        \pcntl_sigprocmask(\SIG_SETMASK, JobMaster::SIGNALS);
        $stdin = \fstat(\STDIN);
        if ($arguments !== [] || $stdin === false || ($stdin['mode'] & 0o170000) !== 0o140000) { // S_IFSOCK
            throw new UsageException('job-master is started by serve at its first task (its standard input a socket to it), not by hand');
        }
        $channel = \STDIN;
        $line = \fgets($channel);
        $settings = \is_string($line) ? \json_decode($line, true) : null;
        $key = \is_array($settings) && \is_string($settings['key'] ?? null) ? \base64_decode($settings['key'], true) : false;
        if (!\is_array($settings) || !\is_string($key) || !\is_array($settings['pool'] ?? null)) {
            return ExitCode::Runtime->value; // the serving process died before it said anything
        }
        \ini_set('memory_limit', (string) ($settings['memoryLimit'] ?? '256M'));
        $logger = new RateLimitedLogger(new StderrLogger((string) ($settings['logLevel'] ?? 'info')));
        $config = JobPoolConfig::fromTransfer($settings['pool'], new JobKeys($key));
        unset($settings, $key, $line);
        \stream_set_blocking($channel, false);

        return JobMaster::superviseHere($config, $channel, $logger);
    }
}
