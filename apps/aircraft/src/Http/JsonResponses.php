<?php

declare(strict_types=1);

namespace Bobbin\Apps\Aircraft\Http;

use Nyholm\Psr7\Response;
use Psr\Http\Message\ResponseInterface;

/** Builds the application's responses; every error body is {"error": "..."} per the contract. */
final class JsonResponses
{
    private const FLAGS = \JSON_UNESCAPED_SLASHES | \JSON_UNESCAPED_UNICODE | \JSON_THROW_ON_ERROR;

    /** @param array<string, string> $headers */
    public function json(int $status, mixed $data, array $headers = []): ResponseInterface
    {
        $headers['Content-Type'] = 'application/json';

        return new Response($status, $headers, \json_encode($data, self::FLAGS));
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
        return new Response($status, ['Content-Type' => 'text/plain; charset=utf-8'], $text);
    }

    public function noContent(): ResponseInterface
    {
        return new Response(204);
    }
}
