<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Preload;

use Bobbin\Http\Message\ServerRequest;
use Bobbin\Process\ApplicationLoader;

/**
 * Which files an application loads to serve some requests: loads its APP_FILE as `bin/bobbin
 * serve` does, sends each request through the handler (in this process, waits blocking), and
 * lists the files included since before the APP_FILE (Bobbin's own command-line code left out).
 */
final class PreloadRecorder
{
    /** @var list<array{string, int|string}> */
    public array $responses = [];

    /**
     * @param list<string> $paths GET targets to send, e.g. /items/1
     * @param list<string> $exclude path prefixes to leave out
     * @return list<string>
     */
    public function record(string $appFile, array $paths, array $exclude = []): array
    {
        $before = \array_flip(\get_included_files());
        $handler = ApplicationLoader::load($appFile);
        foreach ($paths as $path) {
            try {
                $response = $handler->handle(ServerRequest::create('GET', $path, [
                    'REQUEST_METHOD' => 'GET', 'REQUEST_URI' => $path, 'HTTP_HOST' => 'localhost', 'SERVER_NAME' => 'localhost',
                    'SERVER_PORT' => '80', 'SERVER_PROTOCOL' => 'HTTP/1.1', 'QUERY_STRING' => (string) \parse_url($path, \PHP_URL_QUERY),
                    'REMOTE_ADDR' => '127.0.0.1', 'SCRIPT_FILENAME' => \realpath($appFile) ?: $appFile,
                ])->withHeader('Host', 'localhost'));
                $this->responses[] = [$path, $response->getStatusCode()];
            } catch (\Throwable $error) {
                $this->responses[] = [$path, $error::class . ': ' . $error->getMessage()];
            }
        }
        $files = [];
        foreach (\get_included_files() as $file) {
            if (isset($before[$file]) || !\str_ends_with($file, '.php')) {
                continue;
            }
            foreach ($exclude as $prefix) {
                if (\str_starts_with($file, $prefix)) {
                    continue 2;
                }
            }
            $files[] = $file;
        }

        return $files;
    }
}
