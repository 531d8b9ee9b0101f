<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Exception;

use Bobbin\MessagePack\Extension\BoxError;

/** Every error of the Tarantool client; errorCode() is the server's (box.error) code, 0 for the client's own. */
class TarantoolException extends \RuntimeException
{
    public function __construct(string $message, int $code = 0, private readonly ?BoxError $errorStack = null, ?\Throwable $previous = null)
    {
        parent::__construct($message, $code, $previous);
    }

    public function errorCode(): int
    {
        return $this->getCode();
    }

    /** The server's error stack (the error, then its causes through ->previous), when it sent one. */
    public function errorStack(): ?BoxError
    {
        return $this->errorStack;
    }
}
