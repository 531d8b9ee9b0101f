<?php

declare(strict_types=1);

namespace Bobbin\Cli;

/**
 * One parser for every command's arguments (serve, jobs-worker, reload/status/stop), driven by
 * the command's table of options: `--name=value`, `--name value`, a bool option alone
 * (`--watch`), flags that stand for an option's value (`--no-opcache`), `--help`/`-h`, and at
 * most one positional argument. An option given twice keeps its last value, and every value is
 * kept too for the options that may repeat (`--request=/a --request=/b`). It checks names and presence only; what
 * a value means is the command's business.
 */
final class CommandLine
{
    /**
     * @param string $command the command's name, for messages ("serve", "jobs-worker")
     * @param array<string, string> $types every option the command takes => 'bool', 'int' or 'string'
     * @param string $positional what the positional argument is called ("APP_FILE"); '' when the command takes none
     * @param array<string, array{string, string}> $flags arguments that set an option ('--no-opcache' => ['opcache', '0'])
     */
    public function __construct(
        private readonly string $command,
        private readonly array $types,
        private readonly string $positional = '',
        private readonly array $flags = [],
    ) {
    }

    /**
     * @param list<string> $arguments
     * @throws UsageException naming the argument at fault
     */
    public function parse(array $arguments): ParsedArguments
    {
        $positional = null;
        $options = [];
        $every = [];
        $count = \count($arguments);
        for ($i = 0; $i < $count; $i++) {
            $argument = $arguments[$i];
            if ($argument === '--help' || $argument === '-h') {
                return new ParsedArguments(null, [], [], true);
            }
            if (isset($this->flags[$argument])) {
                [$name, $value] = $this->flags[$argument];
                $options[$name] = $value;
                $every[$name][] = $value;
                continue;
            }
            if (\str_starts_with($argument, '--')) {
                $equals = \strpos($argument, '=');
                $name = $equals === false ? \substr($argument, 2) : \substr($argument, 2, $equals - 2);
                $type = $this->types[$name] ?? null;
                if ($type === null) {
                    // Before looking for its value: an unknown option last has none to find.
                    throw new UsageException(\sprintf('Unknown option --%s (try bin/bobbin %s --help)', $name, $this->command));
                }
                if ($equals !== false) {
                    $value = \substr($argument, $equals + 1);
                } elseif ($type === 'bool') {
                    $value = '1';
                } elseif ($i + 1 < $count) {
                    $value = $arguments[++$i];
                } else {
                    throw new UsageException(\sprintf('Option --%s needs a value', $name));
                }
                $options[$name] = $value;
                $every[$name][] = $value;
                continue;
            }
            if (\str_starts_with($argument, '-') && $argument !== '-') {
                throw new UsageException(\sprintf('Unknown option %s (try bin/bobbin %s --help)', $argument, $this->command));
            }
            if ($this->positional === '') {
                throw new UsageException(\sprintf('Unexpected argument "%s" (try bin/bobbin %s --help)', $argument, $this->command));
            }
            if ($positional !== null) {
                throw new UsageException(\sprintf('Unexpected argument "%s": %s takes one %s', $argument, $this->command, $this->positional));
            }
            $positional = $argument;
        }

        return new ParsedArguments($positional, $options, $every, false);
    }

    /**
     * The options part of a command's --help: two lines per option (what it does; its default
     * and, when the command reads the environment, its variable).
     *
     * @param array<string, array{string, string}> $rows name => [default as text, help]
     * @return list<string>
     */
    public static function helpLines(array $rows, bool $withEnvironment): array
    {
        $lines = [];
        foreach ($rows as $name => [$default, $help]) {
            $lines[] = \sprintf('  --%-30s %s', $name . '=VALUE', $help);
            $notes = \array_filter([$default === '' ? '' : 'default ' . $default, $withEnvironment ? 'env ' . self::envName($name) : '']);
            if ($notes !== []) {
                $lines[] = \sprintf('  %-32s %s', '', \implode(', ', $notes));
            }
        }
        $lines[] = \sprintf('  %-32s %s', '--help', 'this text');

        return $lines;
    }

    /** The environment variable of an option: --max-body-bytes → BOBBIN_MAX_BODY_BYTES. */
    public static function envName(string $option): string
    {
        return 'BOBBIN_' . \strtoupper(\str_replace('-', '_', $option));
    }
}
