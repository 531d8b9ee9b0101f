<?php

declare(strict_types=1);

namespace Bobbin\Http;

use Bobbin\Async\Cancellation;
use Bobbin\Http\Form\FormData;
use Bobbin\Http\Form\FormDecoder;
use Bobbin\Http\Form\MalformedBodyException;
use Bobbin\Http\Form\MultipartParser;
use Bobbin\Http\Message\ServerRequest;

/**
 * The application's view of a request, from what the parser read. Nothing is parsed or copied
 * here but what must be: the request keeps the parser's parts and builds URI, query, cookies,
 * a URL-encoded form and the body stream when first asked. A multipart form is decoded here,
 * its files written to temporary files that the connection removes when the request is done.
 *
 * @internal one per server, used by its connections
 */
final class RequestBuilder
{
    public function __construct(
        private readonly FormDecoder $formDecoder,
        private readonly TrustedProxies $trustedProxies,
    ) {
    }

    /**
     * @param array<string, string|int> $connectionParams the connection's part of the server params
     * @param bool $behindTrustedProxy the peer is one of --trusted-proxies
     * @return array{ServerRequest, FormData|null} the request, and its multipart form if it has one
     * @throws \InvalidArgumentException for a target or Host that is no valid URI
     * @throws MalformedBodyException for a multipart body that does not follow its format
     */
    public function build(
        RequestHead $head,
        string $body,
        float $now,
        Cancellation $cancellation,
        array $connectionParams,
        string $defaultAuthority,
        bool $behindTrustedProxy,
    ): array {
        $params = $connectionParams;
        $params['REQUEST_METHOD'] = $head->method;
        $params['REQUEST_URI'] = $head->target;
        $params['SERVER_PROTOCOL'] = 'HTTP/' . $head->protocolVersion;
        $params['REQUEST_TIME'] = (int) $now;
        $params['REQUEST_TIME_FLOAT'] = $now;
        $scheme = 'http';
        if ($behindTrustedProxy) {
            [$params['REMOTE_ADDR'], $scheme] = $this->trustedProxies->forwarded($head->headers, (string) $params['REMOTE_ADDR']);
        }
        $form = null;
        if ($head->method === 'POST' && $head->contentType !== null && ($boundary = MultipartParser::boundaryOf($head->contentType)) !== null) {
            $form = $this->formDecoder->decodeMultipart($body, $boundary);
        }
        $request = ServerRequest::fromParsed(
            method: $head->method,
            target: $head->target,
            protocolVersion: $head->protocolVersion,
            headers: $head->headers,
            host: $head->host,
            defaultAuthority: $defaultAuthority,
            body: $body,
            serverParams: $params,
            cookie: $head->cookie,
            attributes: [RequestCancellation::ATTRIBUTE => $cancellation],
            scheme: $scheme,
            contentType: $head->contentType,
            parsedBody: $form?->fields,
            uploadedFiles: $form === null ? [] : $form->files,
        );

        return [$request, $form];
    }
}
