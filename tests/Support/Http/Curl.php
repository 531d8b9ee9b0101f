<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Http;

/** curl, the client nobody here wrote, run to its end: `curl -sS --max-time 20 ARGUMENTS…`. */
final class Curl
{
    private function __construct()
    {
    }

    /**
     * @param list<string> $arguments
     * @return array{string, string} its output and its errors
     */
    public static function run(array $arguments): array
    {
        $process = \proc_open(['curl', '-sS', '--max-time', '20', ...$arguments], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        if (!\is_resource($process)) {
            throw new \RuntimeException('curl could not be started');
        }
        $output = (string) \stream_get_contents($pipes[1]);
        $errors = (string) \stream_get_contents($pipes[2]);
        \proc_close($process);

        return [$output, $errors];
    }
}
