<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

use Bobbin\Async\Async;
use Bobbin\Async\CancelledException;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Log\LoggerInterface;

/**
 * The worker's side of the legacy pool (native/legacy-pool): starts the pool's program with a
 * listening Unix socket as its descriptor 3, opens a connection per request and sends the
 * request over it (ScriptRequestFrame); the response comes back as a ScriptChild reads it.
 * A pool that ended (it never should: it goes when its worker goes) is started again at the
 * next request, and the failure logged.
 *
 * @internal used by IsolatedLegacyLoop
 */
final class LegacyPool
{
    /** Where `make -C native` and `native/legacy-pool/build` put the program. */
    public const BUILT_PROGRAM = __DIR__ . '/../../../native/build/bobbin-legacy-pool';
    private const WRITE_CHUNK = 262144;

    /** @var resource|null */
    private $process = null;
    private string $socketPath = '';

    /**
     * The pool's PHP settings before the user's own: the tracing JIT, as `bin/bobbin serve` runs
     * applications (a pool's processes keep their traces from one request to the next, in
     * opcache's shared memory, as PHP-FPM's children would with it on; docs/LEGACY.md, "Cost
     * beside PHP-FPM"); expose_php off: the pool reads the CLI's php.ini, whose On (Debian's)
     * meant nothing for a SAPI that sends no headers, and Debian's PHP-FPM php.ini has it Off.
     */
    public const DEFAULT_SETTINGS = ['opcache.jit_buffer_size=64M', 'opcache.jit=tracing', 'expose_php=Off'];

    /**
     * @param int $children scripts running at once: the pool's processes
     * @param string $memoryLimit memory_limit of each (--legacy-memory-limit)
     * @param list<string> $settings the user's own `php -d name=value` settings: after the pool's
     *        defaults, so that they win (memory_limit aside: --legacy-memory-limit's)
     */
    public function __construct(
        private readonly string $program,
        private readonly int $children,
        private readonly string $memoryLimit,
        private readonly LoggerInterface $logger,
        private readonly array $settings = [],
    ) {
    }

    /** The pool's program: $BOBBIN_LEGACY_POOL, else the one `native/legacy-pool/build` made; null when neither runs. */
    public static function program(): ?string
    {
        $given = (string) \getenv('BOBBIN_LEGACY_POOL');
        $path = $given !== '' ? $given : self::BUILT_PROGRAM;

        return \is_file($path) && \is_executable($path) ? (string) \realpath($path) : null;
    }

    /** @throws \RuntimeException when the program cannot be started */
    public function start(): void
    {
        $this->socketPath = self::freshSocketPath();
        $listener = @\stream_socket_server('unix://' . $this->socketPath, $code, $message);
        if ($listener === false) {
            throw new \RuntimeException("The legacy pool's socket {$this->socketPath} could not be made: $message");
        }
        $command = [$this->program, '--children=' . $this->children, '--socket-path=' . $this->socketPath];
        foreach ([...self::DEFAULT_SETTINGS, ...$this->settings, 'memory_limit=' . $this->memoryLimit] as $setting) {
            \array_push($command, '-d', $setting);
        }
        $ini = \php_ini_loaded_file();
        $command[] = '--ini=' . ($ini === false ? '' : $ini);
        $environment = \getenv();
        $scanned = \php_ini_scanned_files();
        if (!isset($environment['PHP_INI_SCAN_DIR']) && \is_string($scanned) && $scanned !== '') {
            // The same extensions and settings as this PHP (the CLI's conf.d), not the embed SAPI's.
            $environment['PHP_INI_SCAN_DIR'] = \dirname(\trim(\explode(',', $scanned)[0]));
        }
        $process = @\proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => \STDERR, 2 => \STDERR, 3 => $listener], $pipes, null, $environment);
        // The pool has the socket now; the worker only connects to it by its path.
        \fclose($listener);
        if ($process === false) {
            @\unlink($this->socketPath);
            throw new \RuntimeException('The legacy pool could not be started: ' . (\error_get_last()['message'] ?? 'proc_open failed'));
        }
        $this->process = $process;
    }

    /**
     * A connection to an idle child of the pool with $request on its way to it (what does not
     * fit the socket's buffer at once is written by a fiber of its own, so the script may answer
     * before its body is all sent).
     *
     * @throws \RuntimeException when no connection can be made
     */
    public function open(ServerRequestInterface $request, string $script): ScriptChild
    {
        $socket = @\stream_socket_client('unix://' . $this->socketPath, $code, $message, 1.0);
        if ($socket === false) {
            $this->restartIfEnded();
            $socket = @\stream_socket_client('unix://' . $this->socketPath, $code, $message, 1.0);
            if ($socket === false) {
                throw new \RuntimeException("The legacy pool took no request: $message");
            }
        }
        $server = $request->getServerParams();
        $route = $request->getAttribute(ScriptRoute::ATTRIBUTE);
        $server = $route instanceof ScriptRoute ? \array_replace($server, $route->serverParams()) : $server + ['SCRIPT_FILENAME' => $script];
        $body = (string) $request->getBody();
        \stream_set_blocking($socket, false);
        $bytes = ScriptRequestFrame::head($server, \strlen($body)) . $body;
        // Most requests fit the socket's buffer at once; a larger body goes on in a fiber.
        $written = @\fwrite($socket, $bytes);
        if (\is_int($written) && $written < \strlen($bytes)) {
            Async::run(self::send(...), $socket, \substr($bytes, $written))->ignore();
        }

        return ScriptChild::pooled($socket);
    }

    /** The worker is ending, its scripts done: the pool goes with it. */
    public function stop(): void
    {
        if ($this->process !== null) {
            \proc_terminate($this->process, \SIGTERM);
            \proc_close($this->process);
            $this->process = null;
        }
        if ($this->socketPath !== '') {
            @\unlink($this->socketPath);
        }
    }

    /** @param resource $socket */
    private static function send($socket, string $bytes): void
    {
        $offset = 0;
        $length = \strlen($bytes);
        try {
            while ($offset < $length && \is_resource($socket)) {
                $written = @\fwrite($socket, \substr($bytes, $offset, self::WRITE_CHUNK));
                if ($written === false) {
                    return; // the child went (killed, or it ended without reading the body): the response tells
                }
                $offset += $written;
                if ($offset < $length) {
                    Async::awaitWritable($socket, 60.0);
                }
            }
        } catch (CancelledException) {
            // a child that reads nothing for a minute: the request's deadline ends it
        }
    }

    private function restartIfEnded(): void
    {
        $status = $this->process === null ? null : \proc_get_status($this->process);
        if ($status !== null && $status['running']) {
            return;
        }
        $this->logger->error('The legacy pool had ended ({status}); starting it again', [
            'status' => $status === null ? 'not started' : 'exit code ' . $status['exitcode'],
        ]);
        $this->stop();
        $this->start();
    }

    private static function freshSocketPath(): string
    {
        $name = \sprintf('bobbin-legacy-%d-%s.sock', \getmypid(), \bin2hex(\random_bytes(4)));
        $directory = \sys_get_temp_dir();
        // A Unix socket's path has at most 107 bytes.
        return \strlen($directory) + \strlen($name) < 100 ? $directory . '/' . $name : '/tmp/' . $name;
    }
}
