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

    public function __construct(
        private readonly ResponseFactoryInterface $responses,
        private readonly StreamFactoryInterface $streams,
    ) {
    }

    /** @param array<string, string> $headers */
    public function json(int $status, mixed $data, array $headers = []): ResponseInterface
    {
        $headers['Content-Type'] = 'application/json';

        return $this->respond($status, $headers, \json_encode($data, self::FLAGS));
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
        return $this->respond($status, ['Content-Type' => 'text/plain; charset=utf-8'], $text);
    }

    public function noContent(): ResponseInterface
    {
        return $this->responses->createResponse(204);
    }

    /** @param array<string, string> $headers */
    private function respond(int $status, array $headers, string $body): ResponseInterface
    {
        $response = $this->responses->createResponse($status)->withBody($this->streams->createStream($body));
        foreach ($headers as $name => $value) {
            $response = $response->withHeader($name, $value);
        }

        return $response;
    }
}
