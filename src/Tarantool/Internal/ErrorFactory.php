<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Internal;

use Bobbin\MessagePack\Extension\BoxError;
use Bobbin\Tarantool\Exception\AccessDeniedException;
use Bobbin\Tarantool\Exception\QueryException;
use Bobbin\Tarantool\Exception\TarantoolException;
use Bobbin\Tarantool\Exception\TransactionConflictException;
use Bobbin\Tarantool\Exception\UniqueViolationException;

/**
 * The exception for an error answer, by what the caller does next (docs/CLIENTS.md): the
 * server's code and message, and its error stack (IPROTO_ERROR) when it sent one.
 *
 * @internal
 */
final class ErrorFactory
{
    public static function fromResponse(Response $response, string $request): TarantoolException
    {
        $code = $response->errorCode();
        $stack = null;
        if (isset($response->body[Iproto::ERROR])) {
            try {
                $stack = BoxError::fromMap($response->body[Iproto::ERROR]);
            } catch (\UnexpectedValueException) {
                // A stack we cannot read still leaves the plain message.
            }
        }
        $message = $response->body[Iproto::ERROR_24] ?? $stack?->message;
        $message = \is_string($message) && $message !== '' ? $message : 'error ' . $code;
        $text = \sprintf('%s (%s, code %d)', $message, $request, $code);

        return match ($code) {
            Iproto::ER_TUPLE_FOUND => new UniqueViolationException($text, $code, $stack),
            Iproto::ER_TRANSACTION_CONFLICT => new TransactionConflictException($text, $code, $stack),
            Iproto::ER_ACCESS_DENIED, Iproto::ER_NO_SUCH_USER, Iproto::ER_PASSWORD_MISMATCH => new AccessDeniedException($text, $code, $stack),
            default => new QueryException($text, $code, $stack),
        };
    }
}
