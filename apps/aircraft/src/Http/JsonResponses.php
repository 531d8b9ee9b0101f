<?php

declare(strict_types=1);

namespace Bobbin\Apps\Aircraft\Http;

use Psr\Http\Message\ResponseFactoryInterface;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\StreamFactoryInterface;

/**
 * Builds the application's responses; every error body is {"error": "..."} per the contract.
 * Through PSR-17 factories, so the application depends on no PSR-7 implementation: the
 * container wires Bobbin's (Bobbin\Http\Message\MessageFactory), which the server writes
 * fastest, and any other works the same.
 */
final class JsonResponses
{
    private const FLAGS = \JSON_UNESCAPED_SLASHES | \JSON_UNESCAPED_UNICODE | \JSON_THROW_ON_ERROR;
    private const JSON = 'application/json';
    private const TEXT = 'text/plain; charset=utf-8';

    /**
     * Bodiless responses with status and Content-Type already set, one per pair used, built on
     * first use: every response starts as one of them plus its body, which saves creating a
     * response and validating the same header on every request. PSR-7 messages are immutable,
     * so sharing is safe; these never leave this class and nobody reads their body stream.
     *
     * @var array<string, array<int, ResponseInterface>> content type => status => response
     */
    private array $heads = [];

    public function __construct(
        private readonly ResponseFactoryInterface $responses,
        private readonly StreamFactoryInterface $streams,
    ) {
    }

    /** @param array<string, string> $headers */
    public function json(int $status, mixed $data, array $headers = []): ResponseInterface
    {
        return $this->respond($status, self::JSON, \json_encode($data, self::FLAGS), $headers);
    }

    /**
     * @param array<string, string> $fields for 422: field name => what is wrong
     * @param array<string, string> $headers
     */
    public function error(int $status, string $message, array $fields = [], array $headers = []): ResponseInterface
    {
        $body = ['error' => $message];
        if ($fields !== []) {
            $body['fields'] = $fields;
        }

        return $this->json($status, $body, $headers);
    }

    public function text(int $status, string $text): ResponseInterface
    {
        return $this->respond($status, self::TEXT, $text);
    }

    public function noContent(): ResponseInterface
    {
        return $this->responses->createResponse(204);
    }

    /** @param array<string, string> $headers further headers, such as Location */
    private function respond(int $status, string $contentType, string $body, array $headers = []): ResponseInterface
    {
        $head = $this->heads[$contentType][$status]
            ??= $this->responses->createResponse($status)->withHeader('Content-Type', $contentType);
        $response = $head->withBody($this->streams->createStream($body));
        foreach ($headers as $name => $value) {
            $response = $response->withHeader($name, $value);
        }

        return $response;
    }
}
