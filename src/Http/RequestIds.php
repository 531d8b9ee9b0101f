<?php

declare(strict_types=1);

namespace Bobbin\Http;

/**
 * Ids for requests whose clients sent no X-Request-Id: a random prefix per process and a
 * counter, so an id is unique across the workers and restarts of a server and costs a string
 * concatenation. A client's own id is kept when it is a short token.
 */
final class RequestIds
{
    /** The attribute under which a request carries its id. */
    public const ATTRIBUTE = 'bobbin.request_id';

    private readonly string $prefix;
    /** @var int untyped: counted per request (docs/ASYNC.md, Rules) */
    private $next = 0;

    public function __construct()
    {
        $this->prefix = \bin2hex(\random_bytes(4)) . '-';
    }

    /** The client's id when it is usable (1–128 visible characters), else a new one. */
    public function for(?string $fromClient): string
    {
        if ($fromClient !== null && $fromClient !== '' && \strlen($fromClient) <= 128 && \preg_match('/^[\x21-\x7e]+$/D', $fromClient) === 1) {
            return $fromClient;
        }

        return $this->prefix . \dechex(++$this->next);
    }
}
