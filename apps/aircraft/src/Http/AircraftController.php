<?php

declare(strict_types=1);

namespace Bobbin\Apps\Aircraft\Http;

use Bobbin\Apps\Aircraft\Domain\Aircraft;
use Bobbin\Apps\Aircraft\Domain\AircraftInput;
use Bobbin\Apps\Aircraft\Domain\AircraftRepository;
use Bobbin\Apps\Aircraft\Domain\ValidationException;
use Bobbin\Async\Cancellation;
use Bobbin\Async\OutcomeUnknown;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Http\RequestCancellation;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;

/**
 * The /aircraft endpoints: HTTP in, domain calls, HTTP out.
 *
 * A write whose outcome is unknown (OutcomeUnknown: sent, and its answer never came) is looked
 * up by its key on another connection, within its own short deadline (the request's may have
 * passed), and answered with what is there: the pattern an application should copy
 * (docs/CLIENTS.md). What the lookup cannot settle stays unknown: AircraftApplication answers 504.
 */
final class AircraftController
{
    /** How long the lookup of a write whose outcome is unknown may take. */
    private const LOOKUP_SECONDS = 1.0;
    private const DEFAULT_LIMIT = 20;
    private const MAX_LIMIT = 100;
    private const MAX_BODY_DEPTH = 8;

    public function __construct(
        private readonly AircraftRepository $aircraft,
        private readonly JsonResponses $responses,
    ) {
    }

    public function create(ServerRequestInterface $request): ResponseInterface
    {
        $input = AircraftInput::fromArray($this->jsonObject($request));
        try {
            $created = $this->aircraft->create($input, RequestCancellation::of($request));
        } catch (OutcomeUnknown $unknown) {
            // Not there (yet) proves nothing: the INSERT may still be on its way. Still unknown.
            $created = $this->lookUp($unknown, fn (Cancellation $c): ?Aircraft => $this->aircraft->findByNumber($input->number, $c));
            if ($created === null || !$created->holds($input)) {
                throw $unknown;
            }
        }

        return $this->responses->json(201, $created->toArray(), ['Location' => '/aircraft/' . $created->id]);
    }

    public function show(ServerRequestInterface $request, string $id): ResponseInterface
    {
        $found = ($key = self::id($id)) === null ? null : $this->aircraft->find($key, RequestCancellation::of($request));

        return $found === null ? $this->notFound() : $this->responses->json(200, $found->toArray());
    }

    public function replace(ServerRequestInterface $request, string $id): ResponseInterface
    {
        $key = self::id($id);
        if ($key === null) {
            return $this->notFound();
        }
        $input = AircraftInput::fromArray($this->jsonObject($request));
        try {
            $updated = $this->aircraft->replace($key, $input, RequestCancellation::of($request));
        } catch (OutcomeUnknown $unknown) {
            $updated = $this->lookUp($unknown, fn (Cancellation $c): ?Aircraft => $this->aircraft->find($key, $c));
            if ($updated === null || !$updated->holds($input)) {
                throw $unknown;
            }
        }

        return $updated === null ? $this->notFound() : $this->responses->json(200, $updated->toArray());
    }

    public function delete(ServerRequestInterface $request, string $id): ResponseInterface
    {
        $key = self::id($id);
        if ($key === null) {
            return $this->notFound();
        }
        try {
            $deleted = $this->aircraft->delete($key, RequestCancellation::of($request));
        } catch (OutcomeUnknown $unknown) {
            if ($this->lookUp($unknown, fn (Cancellation $c): ?Aircraft => $this->aircraft->find($key, $c)) !== null) {
                throw $unknown; // still there: the DELETE may still be on its way
            }
            $deleted = true; // gone: by this request's DELETE or another's, the resource is deleted
        }

        return $deleted ? $this->responses->noContent() : $this->notFound();
    }

    /**
     * Runs $lookup within its own deadline; a lookup that fails too leaves the outcome unknown.
     *
     * @param \Closure(Cancellation): ?Aircraft $lookup
     * @throws OutcomeUnknown
     */
    private function lookUp(OutcomeUnknown $unknown, \Closure $lookup): ?Aircraft
    {
        try {
            return $lookup(new TimeoutCancellation(self::LOOKUP_SECONDS));
        } catch (\Throwable) {
            throw $unknown;
        }
    }

    public function list(ServerRequestInterface $request): ResponseInterface
    {
        $query = $request->getQueryParams();
        $errors = [];
        $limit = QueryParameters::integer($query, 'limit', self::DEFAULT_LIMIT, 1, self::MAX_LIMIT, $errors);
        $afterId = QueryParameters::integer($query, 'after_id', 0, 0, \PHP_INT_MAX, $errors);
        if ($errors !== []) {
            throw new ValidationException($errors, 'Invalid query parameters');
        }
        $page = $this->aircraft->page($afterId, $limit, RequestCancellation::of($request));
        $items = [];
        foreach ($page->items as $item) {
            $items[] = $item->toArray();
        }

        return $this->responses->json(200, ['items' => $items, 'next_after_id' => $page->nextAfterId]);
    }

    /** @return array<mixed> */
    private function jsonObject(ServerRequestInterface $request): array
    {
        $body = (string) $request->getBody();
        try {
            $data = \json_decode($body, false, self::MAX_BODY_DEPTH, \JSON_THROW_ON_ERROR);
        } catch (\JsonException $e) {
            throw new BadRequestException('The request body is not valid JSON: ' . $e->getMessage(), 0, $e);
        }
        if (!$data instanceof \stdClass) {
            throw new BadRequestException('The request body must be a JSON object');
        }

        return (array) $data;
    }

    private function notFound(): ResponseInterface
    {
        return $this->responses->error(404, 'No such aircraft');
    }

    /** A path id is a positive bigint written without sign or leading zeros; anything else is "no such id". */
    private static function id(string $raw): ?int
    {
        if (\preg_match('/^[1-9][0-9]{0,18}$/', $raw) !== 1) {
            return null;
        }
        $id = \filter_var($raw, \FILTER_VALIDATE_INT);

        return $id === false ? null : $id;
    }
}
