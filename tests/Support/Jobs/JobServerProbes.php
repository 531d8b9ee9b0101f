<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Jobs;

use Bobbin\Tests\Support\HttpClient;
use Bobbin\Tests\Support\Process\MasterProcess;

/**
 * What the job tests ask of a running server (tests/Support/Jobs/app.php): a GET that must
 * answer 200, and the processes it started (its job workers' supervisor, their workers).
 */
trait JobServerProbes
{
    private function get(MasterProcess $server, string $target): string
    {
        $response = (new HttpClient('127.0.0.1', $server->port()))->request('GET', $target);
        self::assertSame(200, $response->status, $response->body . "\n" . $server->log());

        return $response->body;
    }

    /** @return list<int> the live processes whose parent is $pid, sorted */
    private static function childrenOf(int $pid): array
    {
        $children = [];
        foreach ((array) \glob('/proc/[0-9]*/stat') as $file) {
            $stat = @\file_get_contents((string) $file);
            // pid (comm) state ppid …; comm may hold spaces and parentheses: split after the last ')'.
            if (!\is_string($stat) || \preg_match('/^(\d+) .*\) (\S) (\d+) /s', $stat, $m) !== 1) {
                continue;
            }
            if ((int) $m[3] === $pid && $m[2] !== 'Z') {
                $children[] = (int) $m[1];
            }
        }
        \sort($children);

        return $children;
    }
}
