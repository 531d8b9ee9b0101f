<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Exception;

/**
 * Every error of the MySQL/MariaDB client. The error code and SQLSTATE are those the server sent
 * (0 and '' when the error happened on the client side, e.g. a lost socket).
 */
class MysqlException extends \RuntimeException
{
    public function __construct(
        string $message,
        private readonly int $errorCode = 0,
        private readonly string $sqlState = '',
        ?\Throwable $previous = null,
    ) {
        parent::__construct($message, $errorCode, $previous);
    }

    /** The server's error number (e.g. 1062 for a duplicate key), or 0 for client-side errors. */
    public function errorCode(): int
    {
        return $this->errorCode;
    }

    /** The five-character SQLSTATE (e.g. "23000"), or '' for client-side errors. */
    public function sqlState(): string
    {
        return $this->sqlState;
    }
}
