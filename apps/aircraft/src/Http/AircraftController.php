<?php

declare(strict_types=1);

namespace Bobbin\Apps\Aircraft\Http;

use Bobbin\Apps\Aircraft\Domain\AircraftInput;
use Bobbin\Apps\Aircraft\Domain\AircraftRepository;
use Bobbin\Apps\Aircraft\Domain\ValidationException;
use Bobbin\Http\RequestCancellation;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;

/** The /aircraft endpoints: HTTP in, domain calls, HTTP out. */
final class AircraftController
{
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
        $created = $this->aircraft->create(AircraftInput::fromArray($this->jsonObject($request)), RequestCancellation::of($request));

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
        $updated = $this->aircraft->replace($key, AircraftInput::fromArray($this->jsonObject($request)), RequestCancellation::of($request));

        return $updated === null ? $this->notFound() : $this->responses->json(200, $updated->toArray());
    }

    public function delete(ServerRequestInterface $request, string $id): ResponseInterface
    {
        $key = self::id($id);

        return $key !== null && $this->aircraft->delete($key, RequestCancellation::of($request)) ? $this->responses->noContent() : $this->notFound();
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
