<?php

declare(strict_types=1);

namespace Bobbin\Http;

use Psr\Log\AbstractLogger;
use Psr\Log\LogLevel;

/** One line per record on stderr (or another stream), with {placeholder} interpolation. */
final class StderrLogger extends AbstractLogger
{
    private const SEVERITY = [
        LogLevel::DEBUG => 0, LogLevel::INFO => 1, LogLevel::NOTICE => 2, LogLevel::WARNING => 3,
        LogLevel::ERROR => 4, LogLevel::CRITICAL => 5, LogLevel::ALERT => 6, LogLevel::EMERGENCY => 7,
    ];

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
        $line = \sprintf("%s [%s] %s\n", \gmdate('Y-m-d\TH:i:s\Z'), $level, \str_replace("\n", ' ', $message));
        if (isset($context['exception']) && $context['exception'] instanceof \Throwable) {
            $e = $context['exception'];
            $line .= \sprintf("    %s: %s in %s:%d\n", $e::class, \str_replace("\n", ' ', $e->getMessage()), $e->getFile(), $e->getLine());
        }
        @\fwrite($this->stream, $line);
    }
}
