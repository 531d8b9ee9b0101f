<?php

declare(strict_types=1);

namespace Bobbin\Bench\Soak;

use Bobbin\Bench\Faults\CrudLoad;
use Bobbin\Bench\Load\FreshRequestProbe;

/**
 * The soak's load clients, one kind per process (bench/soak/run.php starts them): each loops
 * until $until and hands every request's record to $write. Every client but the probe follows
 * each 99 requests of its own with one that ends its worker (/soak/exit and /soak/oom in turn),
 * on a fresh connection: 1 % of the traffic.
 *
 * Record: c class, m method, p path (or the aircraft number), s status (0: no answer), k who
 * answered an error (`app`: the application's JSON; `server`: the server's own plain text),
 * at, ms, e what went wrong (no answer, a wrong body); CRUD records add id, title, body for
 * the ledger.
 */
final class SoakClients
{
    private const FATAL_EVERY = 99;
    private const FATAL_PATHS = ['/soak/exit', '/soak/oom'];

    private int $requests = 0;
    private int $fatal = 0;

    /** @param \Closure(array<string, mixed>): void $write */
    public function __construct(
        private readonly string $host,
        private readonly int $port,
        private readonly \Closure $write,
    ) {
    }

    public function run(string $kind, string $prefix, float $until): void
    {
        match ($kind) {
            'crud' => $this->crud($prefix, $until),
            'sleep' => $this->loop($until, fn (HttpClient $c): array => $this->exchange($c, 'sleep', 'GET', '/sleep')),
            'upload' => $this->loop($until, fn (HttpClient $c): array => $this->upload($c, 'upload', \random_int(16 << 10, 512 << 10), 0, 0.0)),
            // ~1.3 KB/s: slow, yet above the server's default --min-data-rate (256 B/s).
            'slow' => $this->loop($until, fn (HttpClient $c): array => $this->upload($c, 'slow', 4096, 256, 0.2)),
            'probe' => $this->probe($until),
            default => throw new \InvalidArgumentException("unknown client kind $kind"),
        };
    }

    private function crud(string $prefix, float $until): void
    {
        (new CrudLoad($this->host, $this->port, $prefix))->run($until, function (array $record): void {
            $error = $record['status'] >= 500 || $record['status'] === 0;
            ($this->write)([
                'c' => 'crud',
                'm' => $record['method'],
                'p' => $record['number'],
                's' => $record['status'],
                'k' => $error ? self::who($record['body']) : '',
                'at' => $record['at'],
                'ms' => $record['ms'],
                'id' => $record['id'],
                'title' => $record['title'],
                'body' => \substr($record['body'], 0, 400),
                'e' => $record['error'],
            ]);
            $this->counted();
        });
    }

    /** @param \Closure(HttpClient): array<string, mixed> $once */
    private function loop(float $until, \Closure $once): void
    {
        $client = new HttpClient($this->host, $this->port);
        while (\microtime(true) < $until) {
            ($this->write)($once($client));
            $this->counted();
        }
        $client->disconnect();
    }

    /** @return array<string, mixed> */
    private function exchange(HttpClient $client, string $class, string $method, string $path, bool $close = false): array
    {
        $at = \microtime(true);
        $answer = $client->request($method, $path, [], '', $close);

        return self::record($class, $method, $path, $answer, $at, $answer['status'] === 0 ? $answer['error'] : '');
    }

    /** @return array<string, mixed> */
    private function upload(HttpClient $client, string $class, int $size, int $chunk, float $pause): array
    {
        $content = \random_bytes($size);
        $boundary = 'soak' . \bin2hex(\random_bytes(8));
        $body = "--$boundary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"blob.bin\"\r\n"
            . "Content-Type: application/octet-stream\r\n\r\n$content\r\n--$boundary--\r\n";
        $at = \microtime(true);
        $answer = $client->request('POST', '/soak/upload', ['Content-Type' => "multipart/form-data; boundary=$boundary"], $body, false, $chunk, $pause);
        $error = $answer['status'] === 0 ? $answer['error'] : '';
        if ($answer['status'] === 200 && $answer['body'] !== \json_encode(['size' => $size, 'sha1' => \sha1($content)])) {
            $error = 'wrong answer: ' . \substr($answer['body'], 0, 100);
        }

        return self::record($class, 'POST', '/soak/upload', $answer, $at, $error);
    }

    private function probe(float $until): void
    {
        // A fresh connection for / every 100 ms, each waited for up to 30 s: the longest wait a
        // new visitor saw, not one cut at a timeout.
        (new FreshRequestProbe($this->host, $this->port, 10.0, 30.0, '/', function (float $begun, float $seconds, int|string $status): void {
            ($this->write)(['c' => 'probe', 'm' => 'GET', 'p' => '/', 's' => \is_int($status) ? $status : 0, 'k' => '', 'at' => $begun, 'ms' => \round($seconds * 1000, 2), 'e' => \is_int($status) ? '' : $status]);
        }))->run(\max(0.0, $until - \microtime(true)));
    }

    /** After each request of this client: every FATAL_EVERY-th is followed by a fatal one. */
    private function counted(): void
    {
        if (++$this->requests % self::FATAL_EVERY !== 0) {
            return;
        }
        $path = self::FATAL_PATHS[$this->fatal++ % \count(self::FATAL_PATHS)];
        $client = new HttpClient($this->host, $this->port);
        ($this->write)($this->exchange($client, 'fatal', 'GET', $path, true));
        $client->disconnect();
    }

    /**
     * @param array{status: int, body: string, error: string} $answer
     * @return array<string, mixed>
     */
    private static function record(string $class, string $method, string $path, array $answer, float $at, string $error): array
    {
        return [
            'c' => $class,
            'm' => $method,
            'p' => $path,
            's' => $answer['status'],
            'k' => $answer['status'] >= 400 ? self::who($answer['body']) : '',
            'at' => $at,
            'ms' => \round((\microtime(true) - $at) * 1000, 2),
            'e' => $error,
            'b' => $answer['status'] >= 400 ? \substr($answer['body'], 0, 160) : '',
        ];
    }

    /** The application's errors are JSON objects; the server's own are plain text. */
    private static function who(string $body): string
    {
        return \str_starts_with($body, '{') ? 'app' : ($body === '' ? '' : 'server');
    }
}
