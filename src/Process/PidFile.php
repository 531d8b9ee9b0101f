<?php

declare(strict_types=1);

namespace Bobbin\Process;

/**
 * The pid file of `serve --pid-file`: claimed before the server listens, so that a second serve
 * with the same pid file refuses to start (instead of sharing the port and taking the file over),
 * and removed at the end only while it still holds this process's pid (a server started after
 * it, or an operator, may have written another).
 */
final class PidFile
{
    private function __construct(public readonly string $path, private readonly int $pid)
    {
    }

    /**
     * Writes this process's pid to $path unless a live process's pid is already there; a pid
     * file left by a process that is gone is replaced.
     *
     * @throws PidFileException
     */
    public static function claim(string $path): self
    {
        $pid = (int) \getmypid();
        for ($attempt = 0; $attempt < 2; $attempt++) {
            $file = @\fopen($path, 'x'); // O_EXCL: of two servers starting at once, one wins
            if ($file !== false) {
                $written = \fwrite($file, $pid . "\n");
                \fclose($file);
                if ($written === false) {
                    @\unlink($path);
                    break;
                }

                return new self($path, $pid);
            }
            $holder = self::pidIn($path);
            if ($holder === $pid) {
                return new self($path, $pid); // written before an exec() of this same process
            }
            if ($holder !== null && self::isAlive($holder)) {
                throw new PidFileException(\sprintf(
                    'the pid file %s names process %d, which is running: another server uses it (bin/bobbin stop --pid-file=%1$s), or remove the file if that process is not Bobbin',
                    $path,
                    $holder,
                ));
            }
            if (!\file_exists($path) && !\is_dir(\dirname($path))) {
                break;
            }
            @\unlink($path); // left by a process that is gone
        }
        throw new PidFileException(\sprintf('cannot write the pid file %s', $path));
    }

    /** Removes the file if it still holds this process's pid (and says so); leaves anyone else's alone. */
    public function release(): bool
    {
        if (self::pidIn($this->path) !== $this->pid) {
            return false;
        }

        return @\unlink($this->path);
    }

    /** The pid in $path: null when there is no such file or no pid in it. */
    public static function pidIn(string $path): ?int
    {
        $contents = @\file_get_contents($path);
        if ($contents === false || \preg_match('/^\s*(\d+)\s*$/', $contents, $m) !== 1) {
            return null;
        }

        return (int) $m[1] > 0 ? (int) $m[1] : null;
    }

    /** Whether $pid is a running process (a zombie is not). */
    public static function isAlive(int $pid): bool
    {
        if (!\posix_kill($pid, 0) && \posix_get_last_error() !== \PCNTL_EPERM) {
            return false;
        }
        $stat = @\file_get_contents('/proc/' . $pid . '/stat');

        return !(\is_string($stat) && \preg_match('/\) (\S)/', $stat, $m) === 1 && $m[1] === 'Z');
    }
}
