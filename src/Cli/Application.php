<?php

declare(strict_types=1);

namespace Bobbin\Cli;

use Bobbin\Platform\MissingExtensionException;
use Bobbin\Async\Async;
use Bobbin\Http\Legacy\GlobalScopeHandoffException;

/** `bin/bobbin`: picks the sub-command and turns failures into one stderr line and an exit code. */
final class Application
{
    /** @var resource */
    private $stdout;
    /** @var resource */
    private $stderr;

    /**
     * @param resource|null $stdout
     * @param resource|null $stderr
     */
    public function __construct($stdout = null, $stderr = null)
    {
        $this->stdout = $stdout ?? \STDOUT;
        $this->stderr = $stderr ?? \STDERR;
    }

    /** @param list<string> $arguments the command line without the program name */
    public function run(array $arguments): int
    {
        $command = $arguments[0] ?? '--help';
        try {
            // The server's loop: installed here, when a command starts, never by the autoloader
            // (a library leaves the loop of the program that loads it alone; docs/ASYNC.md).
            Async::installLoopDriver();
            switch ($command) {
                case '--help':
                case '-h':
                case 'help':
                    if (($arguments[1] ?? null) === 'serve') {
                        \fwrite($this->stdout, ServeCommand::help());
                    } elseif (($arguments[1] ?? null) === 'jobs-worker') {
                        \fwrite($this->stdout, JobsWorkerCommand::help());
                    } elseif (($arguments[1] ?? null) === 'preload') {
                        \fwrite($this->stdout, PreloadCommand::help());
                    } elseif (\in_array($arguments[1] ?? null, ControlCommand::COMMANDS, true)) {
                        \fwrite($this->stdout, ControlCommand::help());
                    } else {
                        \fwrite($this->stdout, self::help());
                    }

                    return ExitCode::Ok->value;
                case 'serve':
                    return (new ServeCommand($this->stdout, $this->stderr))->run(\array_slice($arguments, 1));
                case 'jobs-worker':
                    return (new JobsWorkerCommand($this->stdout, $this->stderr))->run(\array_slice($arguments, 1));
                case JobMasterCommand::NAME: // internal: started by serve at its first task
                    return (new JobMasterCommand())->run(\array_slice($arguments, 1));
                case 'preload':
                    return (new PreloadCommand($this->stdout, $this->stderr))->run(\array_slice($arguments, 1));
                case 'reload':
                case 'status':
                case 'stop':
                    return (new ControlCommand($this->stdout))->run($command, \array_slice($arguments, 1));
                default:
                    throw new UsageException(\sprintf('Unknown command "%s" (try bin/bobbin --help)', $command));
            }
        } catch (GlobalScopeHandoffException $handoff) {
            throw $handoff; // a legacy-mode worker on its way to bin/bobbin's global scope
        } catch (UsageException $error) {
            \fwrite($this->stderr, 'bobbin: ' . $error->getMessage() . "\n");

            return ExitCode::Usage->value;
        } catch (\Throwable $error) {
            $message = $error instanceof StartupException || $error instanceof MissingExtensionException
                ? $error->getMessage()
                : \sprintf('%s: %s in %s:%d', $error::class, $error->getMessage(), $error->getFile(), $error->getLine());
            \fwrite($this->stderr, 'bobbin: ' . \str_replace("\n", ' ', $message) . "\n");

            return ExitCode::Runtime->value;
        }
    }

    public static function help(): string
    {
        return <<<'TEXT'
            Bobbin — a long-running PHP application server.

            Usage:
              bin/bobbin serve APP_FILE [options]   serve a PSR-15 application over HTTP/1.1
                                                    (--workers=N, default one per core: a master and N workers)
              bin/bobbin serve --help               every option of serve
              bin/bobbin reload --pid-file=PATH     zero-downtime reload: new workers first, then the old ones drain
              bin/bobbin status --pid-file=PATH     one line per worker: pid, uptime, requests, in flight, memory
              bin/bobbin stop --pid-file=PATH       graceful stop, waits until the master has exited
              bin/bobbin jobs-worker --transport=nats://HOST:PORT [--job-bootstrap=FILE] [--job-workers=N]
                                                    job workers on this host for tasks sent over NATS (--jobs-transport of serve)
              bin/bobbin preload APP_FILE [--request=PATH]… [--output=FILE]
                                                    an opcache.preload script of the files the app loads (for PHP-FPM)
              bin/bobbin --help                     this text

            TEXT;
    }
}
