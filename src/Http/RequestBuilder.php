<?php

declare(strict_types=1);

namespace Bobbin\Http;

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
    /** Made for the first multipart body (with the php.ini limits then in force, which only a restart changes). */
    private ?FormDecoder $formDecoder = null;

    public function __construct(private readonly TrustedProxies $trustedProxies)
    {
    }

    /**
     * Called per request: the class types of its parameters and return are the analyser's
     * (@param, @return), not run-time checks (docs/ASYNC.md, Rules).
     *
     * @param RequestHead $head
     * @param HandledRequestCancellation $cancellation where the request's cancellation is made when
     *        first asked, set to the request's number on its connection
     * @param ConnectionOrigin $origin
     * @param ?FormData $form set to the request's multipart form, if it has one (its temporary
     *                        files are the connection's to remove)
     * @param-out ?FormData $form
     * @throws \InvalidArgumentException for a target or Host that is no valid URI
     * @return ServerRequest
     * @throws MalformedBodyException for a multipart body that does not follow its format
     */
    public function build(
        $head,
        string $body,
        float $now,
        $cancellation,
        string $requestId,
        $origin,
        ?FormData &$form,
    ) {
        // The connection's parameters as they are: the request adds its request line's and
        // REQUEST_TIME when the application first asks (ServerRequest::getServerParams()).
        $params = $origin->serverParams();
        $scheme = isset($params['HTTPS']) ? 'https' : 'http';
        if ($origin->behindTrustedProxy) {
            [$params['REMOTE_ADDR'], $scheme] = $this->trustedProxies->forwarded($head->headers, $origin->remoteAddress);
        }
        $form = null;
        if ($head->method === 'POST' && $head->contentType !== null && ($boundary = MultipartParser::boundaryOf($head->contentType)) !== null) {
            $form = ($this->formDecoder ??= FormDecoder::fromIni())->decodeMultipart($body, $boundary);
        }

        // Positional: named arguments to a method of another file are matched by name at run
        // time, on every call (zend_handle_named_arg; ~800 instructions a request).
        return ServerRequest::fromParsed(
            $head->method,
            $head->target,
            $head->protocolVersion,
            $head->headers,
            $head->host,
            $origin->defaultAuthority,
            $body,
            $params,
            $head->cookie,
            [], // attributes: the server's own come from $cancellation when first asked
            $scheme,
            $head->contentType,
            $form?->fields,
            $form === null ? [] : $form->files,
            $now,
            $cancellation,
            $cancellation->request,
            $requestId,
        );
    }
}
