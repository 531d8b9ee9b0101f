<?php

declare(strict_types=1);

namespace Bobbin\Apps\Aircraft\Http;

use Bobbin\Apps\Aircraft\Domain\AircraftRepository;
use Bobbin\Http\RequestCancellation;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;

/** /health and the contract's /sleep probe. */
final class ProbeController
{
    public function __construct(
        private readonly AircraftRepository $aircraft,
        private readonly JsonResponses $responses,
    ) {
    }

    public function health(ServerRequestInterface $request): ResponseInterface
    {
        return $this->responses->text(200, 'ok');
    }

    public function sleep(ServerRequestInterface $request): ResponseInterface
    {
        [$rows, $uuid] = $this->aircraft->sleepThenGenerateUuid(RequestCancellation::of($request));

        return $this->responses->text(
            200,
            \sprintf('Hello from Sleep request handler! Affected rows: %d. Generated uuid: %s', $rows, $uuid),
        );
    }
}
