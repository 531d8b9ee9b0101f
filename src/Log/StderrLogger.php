<?php

declare(strict_types=1);

namespace Bobbin\Log;

use Psr\Log\AbstractLogger;
use Psr\Log\LogLevel;

/**
 * One line per record on stderr (or another stream), with {placeholder} interpolation. An
 * exception under the context key `exception` follows on indented lines: each exception of its
 * chain (previous ones as "caused by") with its stack trace — unless the context says
 * `exception_logged_before` (RateLimitedLogger does, once a trace has been written), when each
 * gets one line. A string under `stack` (a PHP stack without an exception) follows the same way.
 */
final class StderrLogger extends AbstractLogger
{
    private const SEVERITY = [
        LogLevel::DEBUG => 0, LogLevel::INFO => 1, LogLevel::NOTICE => 2, LogLevel::WARNING => 3,
        LogLevel::ERROR => 4, LogLevel::CRITICAL => 5, LogLevel::ALERT => 6, LogLevel::EMERGENCY => 7,
    ];
    /** A chain longer than this is cut (a cycle, or an application wrapping without end). */
    private const MAX_CHAIN = 10;

    /** @var resource */
    private $stream;
    private readonly int $minimum;

    /** @param resource|null $stream */
    public function __construct(string $minimumLevel = LogLevel::INFO, $stream = null)
    {
        if (!isset(self::SEVERITY[$minimumLevel])) {
            throw new \InvalidArgumentException(\sprintf('Unknown log level "%s"', $minimumLevel));
        }
        $this->minimum = self::SEVERITY[$minimumLevel];
        $this->stream = $stream ?? \STDERR;
    }

    /** @param array<string, mixed> $context */
    public function log($level, string|\Stringable $message, array $context = []): void
    {
        $level = (string) $level;
        if ((self::SEVERITY[$level] ?? 7) < $this->minimum) {
            return;
        }
        $message = (string) $message;
        if (\str_contains($message, '{')) {
            $replacements = [];
            foreach ($context as $key => $value) {
                if ($value instanceof \Throwable) {
                    $replacements['{' . $key . '}'] = $value::class . ': ' . $value->getMessage();
                } elseif ($value === null || \is_scalar($value) || $value instanceof \Stringable) {
                    $replacements['{' . $key . '}'] = (string) $value;
                }
            }
            $message = \strtr($message, $replacements);
        }
        $line = \sprintf("%s [%s] %s\n", \gmdate('Y-m-d\TH:i:s\Z'), $level, self::oneLine($message));
        if (isset($context['exception']) && $context['exception'] instanceof \Throwable) {
            $line .= self::describe($context['exception'], ($context['exception_logged_before'] ?? false) !== true);
        }
        if (isset($context['stack']) && \is_string($context['stack']) && $context['stack'] !== '') {
            // A PHP stack that is not an exception's (BlockReporter's): below the line, as a trace.
            $line .= '        ' . \str_replace("\n", "\n        ", \rtrim($context['stack'])) . "\n";
        }
        @\fwrite($this->stream, $line);
    }

    /** The exception chain, outermost first, each with its trace when $traces. */
    private static function describe(\Throwable $error, bool $traces): string
    {
        $text = '';
        for ($depth = 0; $error !== null && $depth < self::MAX_CHAIN; $depth++, $error = $error->getPrevious()) {
            $text .= \sprintf(
                "    %s%s: %s in %s:%d\n",
                $depth === 0 ? '' : 'caused by ',
                $error::class,
                self::oneLine($error->getMessage()),
                $error->getFile(),
                $error->getLine(),
            );
            if ($traces) {
                $text .= '        ' . \str_replace("\n", "\n        ", $error->getTraceAsString()) . "\n";
            }
        }
        if (!$traces) {
            $text .= "    (the stack trace of this error was logged before)\n";
        }

        return $text;
    }

    private static function oneLine(string $text): string
    {
        return \str_replace(["\r\n", "\n", "\r"], ' ', $text);
    }
}
