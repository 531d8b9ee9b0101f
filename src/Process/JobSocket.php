<?php

declare(strict_types=1);

namespace Bobbin\Process;

/**
 * The unix socket every job worker accepts tasks on: made in a private directory (or at
 * --job-socket) that only this user can connect to (mode 0600). The tasks on it are signed
 * besides (a key made at each start), so reaching the socket is not enough to run anything.
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
        // Made 0600 from the start: a chmod() after bind() would leave a moment in which others could connect.
        $umask = \umask(0o077);
        try {
            $listener = @\stream_socket_server('unix://' . $path, $errno, $errstr, \STREAM_SERVER_BIND | \STREAM_SERVER_LISTEN, $context);
        } finally {
            \umask($umask);
        }
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
