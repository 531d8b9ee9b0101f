<?php

declare(strict_types=1);

namespace Bobbin\Http\Classic;

use Bobbin\Http\Message\Response;
use Bobbin\Http\Message\StringStream;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\StreamInterface;

/**
 * What PHP-FPM would send for a request whose code used PHP's own response functions: pure
 * rules over the captured header lines and output.
 *
 * With a PSR-7 response (a PSR-15 application under a SAPI emitter): the emitter's headers
 * replace those of header() with the same name, Set-Cookie lines add up, and the status is the
 * response's (an emitter sends its status line last); echoed output comes before the body.
 * Without one (a superglobals script): header() and http_response_code() make the response.
 *
 * @internal part of the capture of PHP's own response functions
 */
final class ClassicResponse
{
    private function __construct()
    {
    }

    /**
     * @param list<string> $headerLines "Name: value" as headers_list() gives them
     */
    public static function merge(ResponseInterface $response, array $headerLines, string $output): ResponseInterface
    {
        foreach ($headerLines as $line) {
            [$name, $value] = self::split($line);
            if ($name === null || (\strcasecmp($name, 'Set-Cookie') !== 0 && $response->hasHeader($name))) {
                continue;
            }
            $response = $response->withAddedHeader($name, $value);
        }
        if ($output !== '') {
            $response = $response->withBody(new StringStream($output . $response->getBody()));
        }

        return $response;
    }

    /**
     * The response of a script that wrote its page with echo and header().
     *
     * @param list<string> $headerLines
     * @param int|false $responseCode http_response_code() at the end of the script
     */
    public static function fromScript(array $headerLines, int|false $responseCode, string|StreamInterface $output): ResponseInterface
    {
        $headers = [];
        foreach ($headerLines as $line) {
            [$name, $value] = self::split($line);
            if ($name !== null) {
                $headers[$name][] = $value;
            }
        }
        if (!isset(\array_change_key_case($headers)['content-type'])) {
            // PHP's default_mimetype and default_charset, as PHP-FPM sends them.
            $type = (string) \ini_get('default_mimetype');
            $charset = (string) \ini_get('default_charset');
            if ($type !== '') {
                $headers['Content-Type'] = [$type . ($charset !== '' && \str_starts_with($type, 'text/') ? '; charset=' . $charset : '')];
            }
        }
        $status = $responseCode === false || $responseCode < 100 || $responseCode > 599 ? 200 : $responseCode;

        return new Response($status, $headers, $output);
    }

    /** @return array{string|null, string} */
    private static function split(string $line): array
    {
        $colon = \strpos($line, ':');
        if ($colon === false || $colon === 0) {
            return [null, ''];
        }

        return [\substr($line, 0, $colon), \ltrim(\substr($line, $colon + 1), " \t")];
    }
}
