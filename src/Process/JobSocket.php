<?php

declare(strict_types=1);

namespace Bobbin\Process;

/**
 * The unix socket every job worker accepts tasks on: made in a private directory (or at
 * --job-socket) readable by this user only, since whoever can connect can have a job worker
 * unserialize what it sends.
 */
final class JobSocket
{
    /** Connections waiting for a job worker; capped by net.core.somaxconn. Callers wait their turn beyond it. */
    private const BACKLOG = 4096;

    private function __construct()
    {
    }

    /**
     * @return resource listening, non-blocking
     * @throws MasterFailedException
     */
    public static function bind(JobPoolConfig $config)
    {
        $path = $config->socketPath;
        if ($config->ownsDirectory && !@\mkdir(\dirname($path), 0700)) {
            throw new MasterFailedException(\sprintf('cannot create the directory of the job socket %s', \dirname($path)));
        }
        if (\file_exists($path)) {
            $probe = @\stream_socket_client('unix://' . $path, $errno, $errstr, 1.0);
            if ($probe !== false) {
                \fclose($probe);
                throw new MasterFailedException(\sprintf('the job socket %s is in use by another pool', $path));
            }
            @\unlink($path); // left by a pool that ended without cleaning up
        }
        $context = \stream_context_create(['socket' => ['backlog' => self::BACKLOG]]);
        $listener = @\stream_socket_server('unix://' . $path, $errno, $errstr, \STREAM_SERVER_BIND | \STREAM_SERVER_LISTEN, $context);
        if ($listener === false) {
            if ($config->ownsDirectory) {
                @\rmdir(\dirname($path));
            }
            throw new MasterFailedException(\sprintf('cannot listen on the job socket %s: %s', $path, $errstr !== '' ? $errstr : "error $errno"));
        }
        @\chmod($path, 0600);
        // Shared by every job worker: an idle one that loses the race for a connection gets
        // EAGAIN instead of blocking in accept().
        \stream_set_blocking($listener, false);

        return $listener;
    }

    public static function remove(JobPoolConfig $config): void
    {
        @\unlink($config->socketPath);
        if ($config->ownsDirectory) {
            @\rmdir(\dirname($config->socketPath));
        }
    }
}
