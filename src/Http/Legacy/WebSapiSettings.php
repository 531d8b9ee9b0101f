<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

/**
 * The settings PHP's CLI forces whatever php.ini says (html_errors=0, output_buffering=0,
 * max_execution_time=0), read back from the php.ini files this PHP loaded, so a script's process
 * gets what a PHP-FPM child with the same php.ini gets — or PHP's own defaults where the files
 * say nothing.
 *
 * @internal used by IsolatedLegacyLoop
 */
final readonly class WebSapiSettings
{
    /**
     * @param int|null $outputBuffering the chunk size of the output buffer every request starts with (0: unbounded), null for none
     */
    public function __construct(
        public ?int $outputBuffering = null,
        public bool $htmlErrors = true,
        public int $maxExecutionTime = 30,
    ) {
    }

    public static function fromLoadedIni(): self
    {
        $values = [];
        $scanned = \php_ini_scanned_files();
        $files = [\php_ini_loaded_file(), ...($scanned === false ? [] : \array_map('trim', \explode(',', $scanned)))];
        foreach ($files as $file) {
            if (\is_string($file) && $file !== '' && \is_readable($file)) {
                $parsed = @\parse_ini_file($file, false, \INI_SCANNER_RAW);
                $values = \is_array($parsed) ? \array_replace($values, $parsed) : $values;
            }
        }

        return self::of($values);
    }

    /** @param array<array-key, mixed> $ini as parse_ini_file(…, INI_SCANNER_RAW) reads a file */
    public static function of(array $ini): self
    {
        $buffering = isset($ini['output_buffering']) ? \strtolower(\trim((string) $ini['output_buffering'], " \t\"'")) : '0';
        $outputBuffering = match (true) {
            \in_array($buffering, ['on', 'yes', 'true'], true) => 0,
            \ctype_digit($buffering) && (int) $buffering > 0 => (int) $buffering,
            default => null,
        };
        $html = isset($ini['html_errors']) ? \strtolower(\trim((string) $ini['html_errors'], " \t\"'")) : '1';
        $time = isset($ini['max_execution_time']) ? \trim((string) $ini['max_execution_time'], " \t\"'") : '30';

        return new self(
            $outputBuffering,
            \in_array($html, ['1', 'on', 'yes', 'true'], true),
            \ctype_digit($time) ? (int) $time : 30,
        );
    }
}
