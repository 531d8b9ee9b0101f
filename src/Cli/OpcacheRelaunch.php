<?php

declare(strict_types=1);

namespace Bobbin\Cli;


/**
 * `bin/bobbin serve` runs with opcache (and the JIT, but for a --legacy worker) on by default: opcache.enable_cli is off in
 * a stock CLI and can only be switched on at PHP's start, so bin/bobbin replaces itself once
 * (same pid, same arguments and environment, the user's own `php -d …` options after Bobbin's)
 * with `php -d opcache.enable_cli=1 …`. Off with
 * --no-opcache, --opcache=0 or BOBBIN_OPCACHE=0. Figures behind the settings: docs/PROCESS.md.
 */
final class OpcacheRelaunch
{
    /** The settings bin/bobbin adds; tracing JIT measured faster than opcache alone (docs/PROCESS.md). */
    public const SETTINGS = [
        'opcache.enable_cli' => '1',
        'opcache.jit_buffer_size' => '64M',
        'opcache.jit' => 'tracing',
    ];
    /**
     * `--legacy` with a clean process per request: opcache alone, as PHP-FPM's php.ini has it. The
     * tracing JIT costs there instead of saving: each fresh process starts compiling traces
     * again, taking opcache's lock and switching its 64 MB buffer between writable and
     * executable (about 390 locks and 580 mprotect() calls per WordPress page, counted with
     * strace; docs/LEGACY.md, "Cost beside PHP-FPM").
     */
    public const LEGACY_PER_REQUEST_SETTINGS = [
        'opcache.enable_cli' => '1',
        'opcache.jit' => 'off',
    ];
    /** Set on the relaunched process so that it never relaunches again. */
    private const MARKER = 'BOBBIN_OPCACHE_RELAUNCHED';

    /**
     * @param list<string> $arguments the command line without the program name
     * @param array<string, string> $environment
     * @param list<string> $phpOptions what PHP itself was started with (`-d name=value`, `-c FILE`):
     *        passed on after Bobbin's settings, so that they survive and a user's choice wins
     * @return list<string>|null the PHP arguments to exec, or null to go on as we are
     */
    public static function argumentsFor(string $script, array $arguments, array $environment, array $phpOptions = []): ?array
    {
        if (($arguments[0] ?? '') !== 'serve' || isset($environment[self::MARKER]) || !self::wanted($arguments, $environment)) {
            return null;
        }
        if (!\extension_loaded('Zend OPcache') || \filter_var(\ini_get('opcache.enable_cli'), \FILTER_VALIDATE_BOOL)) {
            return null;
        }
        if (\in_array('--help', $arguments, true) || \in_array('-h', $arguments, true)) {
            return null;
        }
        $php = [];
        foreach (self::forksPerRequest($arguments) ? self::LEGACY_PER_REQUEST_SETTINGS : self::SETTINGS as $name => $value) {
            $php[] = '-d';
            $php[] = $name . '=' . $value;
        }

        return \array_merge($php, $phpOptions, [$script], $arguments);
    }

    /**
     * The options PHP was started with, from its command line as /proc/self/cmdline has it:
     * PHP offers no other way to tell a `-d` setting from one of php.ini, and the relaunch would
     * otherwise drop it silently. $argumentCount arguments follow the script.
     *
     * @param list<string> $commandLine PHP's own, the binary first
     * @return list<string>
     */
    public static function phpOptionsOf(array $commandLine, int $argumentCount): array
    {
        $scriptAt = \count($commandLine) - $argumentCount - 1;
        if (($commandLine[$scriptAt] ?? '') === '--') {
            --$scriptAt; // php -f SCRIPT -- ARGUMENTS
        }
        if ($scriptAt < 1) {
            return [];
        }
        $options = \array_slice($commandLine, 1, $scriptAt - 1);
        if (\end($options) === '-f') {
            \array_pop($options);
        }

        return $options;
    }

    /**
     * The `-d name=value` settings this PHP was started with by its user, without those the
     * relaunch put first: for a process that must see the same settings with other defaults
     * (the legacy pool).
     *
     * @param list<string> $commandLine PHP's own, as /proc/self/cmdline has it
     * @param array<string, string> $environment
     * @return list<string> "name=value", in their order
     */
    public static function userSettingsOf(array $commandLine, int $argumentCount, array $environment): array
    {
        $options = self::phpOptionsOf($commandLine, $argumentCount);
        $settings = [];
        for ($i = 0, $count = \count($options); $i < $count; $i++) {
            if ($options[$i] === '-d' && isset($options[$i + 1])) {
                $settings[] = $options[++$i];
            } elseif (\str_starts_with($options[$i], '-d') && \strlen($options[$i]) > 2) {
                $settings[] = \substr($options[$i], 2);
            }
        }
        if (isset($environment[self::MARKER])) {
            foreach ([self::SETTINGS, self::LEGACY_PER_REQUEST_SETTINGS] as $added) {
                $prefix = \array_map(static fn (string $name, string $value): string => "$name=$value", \array_keys($added), $added);
                if (\array_slice($settings, 0, \count($prefix)) === $prefix) {
                    return \array_slice($settings, \count($prefix));
                }
            }
        }

        return $settings;
    }

    /**
     * This process's command line as /proc/self/cmdline has it, PHP's binary first; [] where it
     * cannot be read.
     *
     * @return list<string>
     */
    public static function ownCommandLine(): array
    {
        $commandLine = @\file_get_contents('/proc/self/cmdline');

        return \is_string($commandLine) && $commandLine !== '' ? \explode("\0", \rtrim($commandLine, "\0")) : [];
    }

    /**
     * The arguments bin/bobbin itself got (after its script): what follows PHP's options in
     * ownCommandLine().
     */
    public static function ownArgumentCount(): int
    {
        return \is_array($_SERVER['argv'] ?? null) ? \max(0, \count($_SERVER['argv']) - 1) : 0;
    }

    /**
     * Replaces this process with PHP and opcache on, when wanted; returns only when it is not.
     *
     * @param list<string> $arguments
     */
    public static function relaunchIfWanted(string $script, array $arguments): void
    {
        /** @var array<string, string> $environment */
        $environment = \getenv();
        $php = self::argumentsFor($script, $arguments, $environment, self::phpOptionsOf(self::ownCommandLine(), \count($arguments)));
        if ($php === null || !\function_exists('pcntl_exec')) {
            return;
        }
        $environment[self::MARKER] = '1';
        @\pcntl_exec(\PHP_BINARY, $php, $environment);
        // exec failed (no such binary, a sandbox): serve without opcache rather than not at all.
    }

    /**
     * Whether the command line asks for --legacy with a clean process per request (either
     * runner). With the fork runner the JIT would cost (above); with the pool the worker runs
     * only Bobbin's own HTTP code, where the JIT saved ~15 µs of a WordPress page's 27–45 ms and
     * cost the worker ~10 MiB of PSS (its code in the buffer): off there too, the pool's own
     * processes have it (LegacyPool::DEFAULT_SETTINGS). Read here, before the options are
     * parsed: the relaunch comes first.
     *
     * @param list<string> $arguments
     */
    private static function forksPerRequest(array $arguments): bool
    {
        $legacy = false;
        $sharedState = false;
        foreach ($arguments as $argument) {
            [$name, $value] = \explode('=', $argument, 2) + [1 => 'true'];
            $on = \filter_var($value, \FILTER_VALIDATE_BOOL, \FILTER_NULL_ON_FAILURE) ?? true;
            if ($name === '--legacy') {
                $legacy = $on;
            } elseif ($name === '--legacy-shared-state') {
                $sharedState = $on;
            }
        }

        return $legacy && !$sharedState;
    }

    /**
     * @param list<string> $arguments
     * @param array<string, string> $environment
     */
    private static function wanted(array $arguments, array $environment): bool
    {
        $wanted = true;
        $fromEnvironment = $environment['BOBBIN_OPCACHE'] ?? '';
        if ($fromEnvironment !== '') {
            $wanted = \filter_var($fromEnvironment, \FILTER_VALIDATE_BOOL, \FILTER_NULL_ON_FAILURE) ?? true;
        }
        foreach ($arguments as $argument) {
            if ($argument === '--no-opcache') {
                $wanted = false;
            } elseif ($argument === '--opcache') {
                $wanted = true;
            } elseif (\str_starts_with($argument, '--opcache=')) {
                $wanted = \filter_var(\substr($argument, 10), \FILTER_VALIDATE_BOOL, \FILTER_NULL_ON_FAILURE) ?? true;
            }
        }

        return $wanted;
    }
}
