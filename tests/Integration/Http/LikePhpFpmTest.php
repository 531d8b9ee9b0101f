<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Tests\Support\FpmServer;
use Bobbin\Tests\Support\Http\ServerProcess;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * The same requests sent to Bobbin and to PHP-FPM behind nginx (the reference, in this test):
 * server parameters key by key, query, forms, cookies and uploaded files as the application sees
 * them (PSR-7 under Bobbin, superglobals under FPM).
 */
final class LikePhpFpmTest extends TestCase
{
    /** Keys whose values must be equal. */
    private const SAME_VALUE = [
        'REQUEST_METHOD', 'REQUEST_URI', 'QUERY_STRING', 'SERVER_PROTOCOL', 'CONTENT_TYPE', 'CONTENT_LENGTH',
        'DOCUMENT_URI', 'REQUEST_SCHEME', 'GATEWAY_INTERFACE', 'SCRIPT_NAME', 'PHP_SELF', 'REMOTE_ADDR', 'SERVER_ADDR',
    ];
    /**
     * Keys both must have, with values of the same type, that differ by nature: ports, times, the
     * script's place, the server's name and software (see ServerParams for HTTP_HOST).
     */
    private const SAME_TYPE = [
        'REMOTE_PORT', 'SERVER_PORT', 'REQUEST_TIME', 'REQUEST_TIME_FLOAT', 'SCRIPT_FILENAME', 'DOCUMENT_ROOT',
        'SERVER_NAME', 'SERVER_SOFTWARE', 'HTTP_HOST',
    ];

    private static ?ServerProcess $bobbin = null;
    private static ?FpmServer $fpm = null;
    private static string $bigFile = '';

    public static function setUpBeforeClass(): void
    {
        self::$bobbin = ServerProcess::start(['--workers=1'], __DIR__ . '/../../Support/Http/dump/index.php');
        self::$fpm = FpmServer::start('', ['--front-controller=' . __DIR__ . '/../../Support/Http/dump-fpm/index.php']);
        self::$bigFile = \tempnam(\sys_get_temp_dir(), 'bobbin-big');
        \file_put_contents(self::$bigFile, \str_repeat('x', 3 * 1024 * 1024)); // over upload_max_filesize (2M)
    }

    public static function tearDownAfterClass(): void
    {
        self::$bobbin?->stop();
        self::$fpm?->stop();
        @\unlink(self::$bigFile);
    }

    /**
     * @param list<string> $curlArguments
     * @return array<string, mixed>
     */
    private static function ask(string $base, array $curlArguments): array
    {
        $command = ['curl', '-sS', '--max-time', '10', ...$curlArguments];
        $command[\count($command) - 1] = $base . $command[\count($command) - 1];
        $process = \proc_open($command, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        self::assertIsResource($process);
        $body = (string) \stream_get_contents($pipes[1]);
        $errors = (string) \stream_get_contents($pipes[2]);
        self::assertSame(0, \proc_close($process), $errors);

        try {
            return \json_decode($body, true, 512, \JSON_THROW_ON_ERROR);
        } catch (\JsonException) {
            self::fail("Not JSON from $base: " . \substr($body, 0, 300));
        }
    }

    /** @return iterable<string, array{list<string>}> curl arguments, the last one the path */
    public static function requests(): iterable
    {
        yield 'a GET with a query, cookies and custom headers' => [['-H', 'X-Custom-Thing: v1', '-H', 'Cookie: a=1; b[]=2; c[x]=3; d="q"; e; f=%20+x;a=2; g.h=1 ;  sp = 5; =z; t=a=b', '-H', 'Accept-Language: de', '/some/path%20x/../y?q=1&r[]=2&r[]=3&e']];
        yield 'a URL-encoded form' => [['--data', 'title=Hello+World&tags[]=a&tags[]=b&user[name]=x&a.b=dots', '/form']];
        yield 'a multipart form with several files and a nested field' => [['-F', 'title=T', '-F', 'x[a]=1', '-F', 'x[b][]=2', '-F', 'one=@' . __FILE__ . ';type=text/x-php', '-F', 'many[]=@' . __FILE__, '-F', 'many[]=@/etc/hostname;filename=other.txt', '/upload']];
        yield 'a multipart form with a file over the limit' => [['-F', 'small=@/etc/hostname', '-F', 'big=@BIG', '/upload']];
        yield 'a PUT with a form type (no parsed body, as PHP does)' => [['-X', 'PUT', '--data', 'x=1', '/put']];
        yield 'a chunked JSON POST' => [['-H', 'Transfer-Encoding: chunked', '-H', 'Content-Type: application/json', '--data', '{"a":1}', '/json']];
    }

    /** @param list<string> $arguments */
    #[DataProvider('requests')]
    public function testTheApplicationSeesWhatItSeesUnderPhpFpm(array $arguments): void
    {
        $arguments = \array_map(static fn (string $a): string => \str_replace('@BIG', '@' . self::$bigFile, $a), $arguments);
        $bobbin = self::ask('http://' . self::$bobbin?->address, $arguments);
        $fpm = self::ask('http://127.0.0.1:' . self::$fpm?->port, $arguments);

        // curl draws a new multipart boundary per request.
        foreach (['CONTENT_TYPE', 'HTTP_CONTENT_TYPE'] as $key) {
            foreach ([&$bobbin, &$fpm] as &$seen) {
                if (isset($seen['server'][$key])) {
                    $seen['server'][$key] = (string) \preg_replace('/boundary=\S+/', 'boundary=B', $seen['server'][$key]);
                }
            }
            unset($seen);
        }
        foreach (self::SAME_VALUE as $key) {
            self::assertArrayHasKey($key, $fpm['server'], "PHP-FPM has no $key");
            self::assertSame($fpm['server'][$key], $bobbin['server'][$key] ?? null, "\$_SERVER['$key']");
        }
        foreach (self::SAME_TYPE as $key) {
            self::assertSame(\get_debug_type($fpm['server'][$key]), \get_debug_type($bobbin['server'][$key] ?? null), "\$_SERVER['$key'] type");
        }
        foreach ($fpm['server'] as $key => $value) {
            if (\str_starts_with($key, 'HTTP_') && $key !== 'HTTP_HOST') {
                self::assertSame($value, $bobbin['server'][$key] ?? null, "\$_SERVER['$key']");
            }
        }

        self::assertSame(\basename($fpm['server']['SCRIPT_FILENAME']), \basename($bobbin['server']['SCRIPT_FILENAME']));
        self::assertSame($fpm['get'], $bobbin['get'], '$_GET');
        self::assertSame($fpm['post'], $bobbin['post'], '$_POST');
        self::assertSame($fpm['cookie'], $bobbin['cookie'], '$_COOKIE');
        self::assertSame($fpm['files'], $bobbin['files'], '$_FILES');
    }
}
