<?php

declare(strict_types=1);

namespace Bobbin\Http\Message;

/**
 * Where a request the server built gets the attributes the server gives every request (its
 * cancellation and id, Bobbin\Http\RequestCancellation and RequestIds) when the application
 * first reads or changes its attributes: a request whose application never asks makes no
 * cancellation and no array for them (issue 41: paid only when used).
 *
 * @internal implemented by Bobbin\Http\HandledRequestCancellation
 */
interface AttributesOnDemand
{
    /**
     * The server's attributes of request number $request of this source, which the server
     * identified as $requestId. Asked again for the same request (another copy of it), the same
     * values while that request is handled.
     *
     * @return array<string, mixed>
     */
    public function attributesOf(int $request, string $requestId): array;
}
