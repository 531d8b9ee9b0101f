<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Symfony;

use Bobbin\Http\Message\Response as BobbinResponse;
use Bobbin\Http\Message\StringStream;
use Bobbin\Http\Message\UploadedFile as BobbinUploadedFile;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Message\UploadedFileInterface;
use Symfony\Component\HttpFoundation\File\UploadedFile;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\HttpFoundation\Response;

/**
 * PSR-7 request in, HttpFoundation request out, and back for the response: the pure part of the
 * Symfony adapter, without symfony/psr-http-message-bridge's factories.
 *
 * Cheap because Bobbin's requests already carry what HttpFoundation reads: server parameters
 * filled as PHP-FPM fills $_SERVER (HTTP_* headers included), parsed query, form body, cookies,
 * so the request is one constructor call with the PSR-7 request's arrays as they are. Uploaded
 * files become HttpFoundation files in "test" mode, since PHP's is_uploaded_file() knows only
 * uploads the SAPI received itself. Responses: headers and cookies as HttpFoundation would send
 * them; a streamed or file response's content is collected through an output buffer (so it is
 * held in memory once).
 */
final class HttpFoundationBridge
{
    private const FORM_METHODS = ['PUT' => true, 'DELETE' => true, 'PATCH' => true];

    /**
     * @template T of Request
     * @param class-string<T> $class Request or a subclass (Laravel's)
     * @return T
     */
    public function toSymfonyRequest(ServerRequestInterface $request, string $class = Request::class): Request
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
            $files === [] ? [] : $this->files($files),
            $server,
            $content,
        );
    }

    public function toPsrResponse(Response $response): ResponseInterface
    {
        $headers = $response->headers->allPreserveCaseWithoutCookies();
        foreach ($response->headers->getCookies() as $cookie) {
            $headers['Set-Cookie'][] = (string) $cookie;
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
     * @return array<mixed>
     */
    private function files(array $files): array
    {
        $converted = [];
        foreach ($files as $key => $file) {
            $converted[$key] = $file instanceof UploadedFileInterface ? $this->file($file) : (\is_array($file) ? $this->files($file) : null);
        }

        return $converted;
    }

    private function file(UploadedFileInterface $file): UploadedFile
    {
        $path = '';
        if ($file->getError() === \UPLOAD_ERR_OK) {
            $path = $file instanceof BobbinUploadedFile
                ? $file->temporaryPath()
                : (string) $file->getStream()->getMetadata('uri');
        }

        return new UploadedFile($path, (string) $file->getClientFilename(), $file->getClientMediaType(), $file->getError(), true);
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
