<?php

declare(strict_types=1);

namespace Bobbin\Http;

/** A request in the application's hands, as a report about it names it. */
final readonly class RunningRequest
{
    public function __construct(
        public string $method,
        public string $target,
        /** The request's id (attribute bobbin.request_id): one per request, unique in the process. */
        public string $id,
    ) {
    }
}
