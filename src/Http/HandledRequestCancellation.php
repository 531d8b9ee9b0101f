<?php

declare(strict_types=1);

namespace Bobbin\Http;

use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Http\Message\AttributesOnDemand;

/**
 * The cancellation of the request a connection handles, made only when something asks for it:
 * the application, through the request's attributes (ServerRequest asks attributesOf() when they
 * are first read or changed), or the connection, to cancel it (its deadline passed, its client
 * left). A request whose application never asks costs no object, and since nothing can wait on a
 * cancellation nobody has, nothing is lost by not making it (issue 41: paid only when used).
 *
 * The connection writes the two properties per request (untyped: docs/ASYNC.md, Rules).
 *
 * @internal one per Connection
 */
final class HandledRequestCancellation implements AttributesOnDemand
{
    /** @var CancellationSource|null made for the handled request, if anything asked */
    public $source = null;
    /** @var int the handled request's number on its connection, from its start until its response is written (a streamed body: whole); 0 between requests */
    public $request = 0;

    /**
     * The request's cancellation and id. While request $request is handled its cancellation is
     * the one the connection cancels; asked for later, a fresh one: nothing cancels a request
     * once its response is written.
     *
     * @return array<string, mixed>
     */
    public function attributesOf(int $request, string $requestId): array
    {
        $source = $request === $this->request ? ($this->source ??= new CancellationSource()) : new CancellationSource();

        return [RequestCancellation::ATTRIBUTE => $source, RequestIds::ATTRIBUTE => $requestId];
    }

    /** The handled request's cancellation, made now if nobody asked yet (to cancel it); null between requests. */
    public function ofHandledRequest(): ?CancellationSource
    {
        return $this->request === 0 ? null : ($this->source ??= new CancellationSource());
    }

    /** Cancels the handled request, if there is one: a later ask finds it cancelled. */
    public function cancel(CancelledException $reason): void
    {
        $this->ofHandledRequest()?->cancel($reason);
    }

    /** The request's response is written: nothing cancels it from now on. */
    public function end(): void
    {
        $this->source = null;
        $this->request = 0;
    }
}
