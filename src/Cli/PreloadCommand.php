<?php

declare(strict_types=1);

namespace Bobbin\Cli;

use Bobbin\Frameworks\Preload\PreloadRecorder;
use Bobbin\Frameworks\Preload\PreloadScript;

/**
 * `bin/bobbin preload APP_FILE [--request=PATH]… [--output=FILE] [--exclude=PREFIX]…`: serves
 * the requests through the application in this process and writes an opcache.preload script
 * of the files it loaded (Bobbin\Frameworks\Preload), for PHP-FPM (opcache.preload=FILE).
 */
final class PreloadCommand
{
    /**
     * @param resource $stdout
     * @param resource $stderr
     */
    public function __construct(private $stdout, private $stderr)
    {
    }

    /** @param list<string> $arguments */
    public function run(array $arguments): int
    {
        $parsed = (new CommandLine('preload', ['request' => 'string', 'output' => 'string', 'exclude' => 'string'], 'APP_FILE'))->parse($arguments);
        if ($parsed->help) {
            \fwrite($this->stdout, self::help());

            return ExitCode::Ok->value;
        }
        $appFile = $parsed->positional;
        $paths = $parsed->every['request'] ?? [];
        $exclude = $parsed->every['exclude'] ?? [];
        $output = $parsed->options['output'] ?? null;
        if ($appFile === null) {
            throw new UsageException('preload: APP_FILE is missing (try bin/bobbin preload --help)');
        }
        $recorder = new PreloadRecorder();
        $files = $recorder->record($appFile, $paths === [] ? ['/'] : $paths, $exclude);
        $script = PreloadScript::render($files, 'bin/bobbin preload ' . \implode(' ', $arguments));
        if ($output === null) {
            \fwrite($this->stdout, $script);
        } elseif (\file_put_contents($output, $script) === false) {
            throw new StartupException("preload: cannot write $output");
        }
        foreach ($recorder->responses as [$path, $outcome]) {
            \fwrite($this->stderr, "bobbin preload: GET $path → $outcome\n");
        }
        \fwrite($this->stderr, \sprintf("bobbin preload: %d files%s\n", \count($files), $output === null ? '' : " in $output"));

        return ExitCode::Ok->value;
    }

    public static function help(): string
    {
        return <<<'TEXT'
            Usage: bin/bobbin preload APP_FILE [--request=PATH]… [--output=FILE] [--exclude=PREFIX]…

            Loads APP_FILE as `serve` does, sends a GET for each PATH (default /) through it in
            this process, and writes an opcache.preload script compiling every PHP file that
            loaded (to stdout, or FILE). Use it for PHP-FPM: opcache.preload=FILE (and
            opcache.preload_user when PHP-FPM starts as root). Send the requests your traffic
            sends most, so their code is preloaded.

            TEXT;
    }
}
