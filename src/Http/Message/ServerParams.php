<?php

declare(strict_types=1);

namespace Bobbin\Http\Message;

/**
 * What PHP-FPM behind nginx (Debian's stock fastcgi_params) puts in $_SERVER for a request,
 * built from what the server knows: the connection and request-line keys it sets itself, the
 * script keys of the application file, and the request's headers.
 *
 * Deliberate differences, each for a reason: HTTP_HOST is the Host header as sent (Debian's
 * nginx passes $host, without the port); HTTP_PROXY is never set (a "Proxy:" header must not
 * become a proxy setting, "httpoxy"); SERVER_NAME is the Host header's host, as nginx's
 * default server and Apache's UseCanonicalName Off give it; no environment variables.
 *
 * @internal used by RequestBuilder (applications read getServerParams())
 */
final class ServerParams
{
    private function __construct()
    {
    }

    /**
     * @param array<string, mixed> $params the connection's and request line's keys (REMOTE_ADDR,
     *        SERVER_PORT, REQUEST_METHOD, REQUEST_URI, SERVER_PROTOCOL, REQUEST_TIME…) and the
     *        application's (SCRIPT_FILENAME, SCRIPT_NAME, DOCUMENT_ROOT, PHP_SELF)
     * @param array<string, list<string>> $headers the request's header fields as received
     * @return array<string, mixed>
     */
    public static function complete(array $params, array $headers, string $target, string $scheme, int $bodyLength): array
    {
        $contentType = $contentLength = null;
        $host = '';
        foreach ($headers as $name => $values) {
            $key = 'HTTP_' . \strtoupper(\strtr($name, '-', '_'));
            if ($key === 'HTTP_PROXY') {
                continue;
            }
            $value = \implode($key === 'HTTP_COOKIE' ? '; ' : ', ', $values);
            $params[$key] = $value;
            if ($key === 'HTTP_CONTENT_TYPE') {
                $contentType = $value;
            } elseif ($key === 'HTTP_CONTENT_LENGTH') {
                $contentLength = $value;
            } elseif ($key === 'HTTP_HOST') {
                $host = $value;
            }
        }
        $question = \strpos($target, '?');
        $path = $question === false ? $target : \substr($target, 0, $question);
        $params['QUERY_STRING'] = $question === false ? '' : \substr($target, $question + 1);
        $params['CONTENT_TYPE'] = $contentType ?? '';
        // A chunked body has no Content-Length header; nginx passes the length it read.
        $params['CONTENT_LENGTH'] = $contentLength ?? ($bodyLength > 0 ? (string) $bodyLength : '');
        $params['DOCUMENT_URI'] = self::documentUri($path);
        $params['REQUEST_SCHEME'] = $scheme;
        if ($scheme === 'https') {
            $params['HTTPS'] = 'on';
        }
        $params['SERVER_NAME'] = self::hostName($host) ?? (string) ($params['SERVER_ADDR'] ?? '');
        $params['GATEWAY_INTERFACE'] = 'CGI/1.1';
        foreach (['REMOTE_PORT', 'SERVER_PORT'] as $key) {
            if (isset($params[$key]) && \is_int($params[$key])) {
                $params[$key] = (string) $params[$key]; // FastCGI passes strings
            }
        }

        return $params;
    }

    /**
     * nginx's $document_uri: the path decoded, with "//" merged and "." and ".." resolved.
     */
    private static function documentUri(string $path): string
    {
        if ($path === '*' || $path === '' || $path[0] !== '/') {
            return $path; // asterisk form; absolute form is rare and left as sent
        }
        $segments = [];
        foreach (\explode('/', \rawurldecode($path)) as $segment) {
            if ($segment === '..') {
                \array_pop($segments);
            } elseif ($segment !== '.' && $segment !== '') {
                $segments[] = $segment;
            }
        }
        $trailing = \str_ends_with($path, '/') || \str_ends_with($path, '/.') || \str_ends_with($path, '/..');

        return '/' . \implode('/', $segments) . ($trailing && $segments !== [] ? '/' : '');
    }

    private static function hostName(string $host): ?string
    {
        if ($host === '') {
            return null;
        }
        if ($host[0] === '[') {
            $end = \strpos($host, ']');

            return $end === false ? $host : \substr($host, 0, $end + 1);
        }
        $colon = \strrpos($host, ':');

        return \strtolower($colon === false ? $host : \substr($host, 0, $colon));
    }
}
