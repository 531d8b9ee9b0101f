<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Symfony;

use Bobbin\Async\Cancellation;
use Bobbin\Http\Message\Response as BobbinResponse;
use Bobbin\Http\Message\StringStream;
use Bobbin\Http\Message\UploadedFile as BobbinUploadedFile;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Message\UploadedFileInterface;
use Symfony\Component\HttpFoundation\File\UploadedFile;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\HttpFoundation\Response;
use Symfony\Component\HttpFoundation\StreamedResponse;

/**
 * PSR-7 request in, HttpFoundation request out, and back for the response: the pure part of the
 * Symfony adapter, without symfony/psr-http-message-bridge's factories.
 *
 * Cheap because Bobbin's requests already carry what HttpFoundation reads: server parameters
 * filled as PHP-FPM fills $_SERVER (HTTP_* headers included), parsed query, form body, cookies,
 * so the request is one constructor call with the PSR-7 request's arrays as they are. Uploaded
 * files become HttpFoundation files in "test" mode, since PHP's is_uploaded_file() knows only
 * uploads the SAPI received itself: what it guards against (a path the client chose) cannot
 * happen, the path is the server's own temporary file; in that mode isValid() is true for a
 * complete upload and move() renames the file. An empty file input is no file (null). Responses: headers and cookies as HttpFoundation would send
 * them; a streamed response is sent as its callback echoes (StreamedBody); a file response's
 * content is collected through an output buffer (so it is held in memory once).
 */
final class HttpFoundationBridge
{
    private const FORM_METHODS = ['PUT' => true, 'DELETE' => true, 'PATCH' => true];

    /**
     * @template T of Request
     * @param class-string<T> $class Request or a subclass (Laravel's)
     * @param class-string<UploadedFile> $fileClass UploadedFile or a subclass: Laravel's, which
     *        its request keeps as it is (UploadedFile::createFromBase() would make a new one and
     *        drop the test mode, and every upload would be invalid)
     * @return T
     */
    public function toSymfonyRequest(ServerRequestInterface $request, string $class = Request::class, string $fileClass = UploadedFile::class): Request
    {
        $server = $request->getServerParams();
        if (!isset($server['HTTP_HOST']) || !isset($server['REQUEST_METHOD'])) {
            $server = $this->serverFromMessage($request, $server);
        }
        $body = $request->getBody();
        $content = $body instanceof StringStream ? $body->contents() : (string) $body;
        $parsed = $request->getParsedBody();
        $form = \is_array($parsed) ? $parsed : [];
        if ($form === [] && $content !== '' && isset(self::FORM_METHODS[$request->getMethod()])
            && \str_starts_with(\strtolower($request->getHeaderLine('Content-Type')), 'application/x-www-form-urlencoded')) {
            // What Request::createFromGlobals() does for these methods (PHP parses POST only).
            \parse_str($content, $form);
        }
        $files = $request->getUploadedFiles();

        return new $class(
            $request->getQueryParams(),
            $form,
            $request->getAttributes(),
            $request->getCookieParams(),
            $files === [] ? [] : $this->files($files, $fileClass),
            $server,
            $content,
        );
    }

    /**
     * With the request's method (and cancellation), a StreamedResponse (StreamedJsonResponse,
     * Laravel's stream() and eventStream()) becomes a StreamedBody that sends what its callback
     * echoes while it runs, unless no body will be sent (HEAD, 204, 304, 1xx: its callback runs
     * now, as PHP-FPM runs it, its output dropped). Whoever made the response checks for a
     * StreamedBody and hands it what comes after the content (StreamedBody::afterwards()).
     * Without a method, or for another response, the content is collected.
     */
    public function toPsrResponse(Response $response, ?string $method = null, ?Cancellation $cancellation = null): ResponseInterface
    {
        $headers = $response->headers->allPreserveCaseWithoutCookies();
        foreach ($response->headers->getCookies() as $cookie) {
            $headers['Set-Cookie'][] = (string) $cookie;
        }
        $status = $response->getStatusCode();
        if ($method !== null && $response instanceof StreamedResponse && $method !== 'HEAD' && $status >= 200 && $status !== 204 && $status !== 304) {
            return new BobbinResponse($status, $headers, new StreamedBody(static function () use ($response): void {
                $response->sendContent();
            }, $cancellation), $response->getProtocolVersion());
        }
        $content = $response->getContent();
        if ($content === false) {
            // StreamedResponse, BinaryFileResponse: their content is what sendContent() writes.
            \ob_start();
            try {
                $response->sendContent();
            } finally {
                $content = (string) \ob_get_clean();
            }
        }

        return new BobbinResponse($response->getStatusCode(), $headers, $content, $response->getProtocolVersion());
    }

    /**
     * @param array<mixed> $files PSR-7's tree of UploadedFileInterface
     * @param class-string<UploadedFile> $fileClass
     * @return array<mixed>
     */
    private function files(array $files, string $fileClass): array
    {
        $converted = [];
        foreach ($files as $key => $file) {
            $converted[$key] = $file instanceof UploadedFileInterface ? $this->file($file, $fileClass) : (\is_array($file) ? $this->files($file, $fileClass) : null);
        }

        return $converted;
    }

    /**
     * @param class-string<UploadedFile> $fileClass
     * @return UploadedFile|array{name: string, type: string, tmp_name: string, error: int, size: int}
     */
    private function file(UploadedFileInterface $file, string $fileClass): UploadedFile|array
    {
        $error = $file->getError();
        if ($error === \UPLOAD_ERR_NO_FILE) {
            // A file input left empty: PHP-FPM's $_FILES entry, which FileBag makes null.
            return ['name' => '', 'type' => '', 'tmp_name' => '', 'error' => \UPLOAD_ERR_NO_FILE, 'size' => 0];
        }
        $path = '';
        if ($error === \UPLOAD_ERR_OK) {
            $path = $file instanceof BobbinUploadedFile
                ? $file->temporaryPath()
                : (string) $file->getStream()->getMetadata('uri');
        }

        return new $fileClass($path, (string) $file->getClientFilename(), $file->getClientMediaType(), $error, true);
    }

    /**
     * Server parameters for a request that did not come from Bobbin's server (tests, other
     * PSR-7 sources): the request line and headers as PHP-FPM would put them in $_SERVER.
     *
     * @param array<string, mixed> $server
     * @return array<string, mixed>
     */
    private function serverFromMessage(ServerRequestInterface $request, array $server): array
    {
        $uri = $request->getUri();
        $server += [
            'REQUEST_METHOD' => $request->getMethod(),
            'REQUEST_URI' => $request->getRequestTarget(),
            'QUERY_STRING' => $uri->getQuery(),
            'SERVER_PROTOCOL' => 'HTTP/' . $request->getProtocolVersion(),
        ];
        if ($uri->getScheme() === 'https') {
            $server += ['HTTPS' => 'on'];
        }
        foreach ($request->getHeaders() as $name => $values) {
            $key = \strtoupper(\strtr((string) $name, '-', '_'));
            $key = $key === 'CONTENT_TYPE' || $key === 'CONTENT_LENGTH' ? $key : 'HTTP_' . $key;
            $server += [$key => \implode(', ', $values)];
        }
        if (!isset($server['HTTP_HOST']) && $uri->getHost() !== '') {
            $server['HTTP_HOST'] = $uri->getHost() . ($uri->getPort() !== null ? ':' . $uri->getPort() : '');
        }

        return $server;
    }
}
