<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Exception;

/**
 * Every error of the PostgreSQL client. The diagnostic fields are those PostgreSQL sent with the
 * error (empty when the error happened on the client side, e.g. a lost socket).
 */
class PostgresException extends \RuntimeException
{
    public function __construct(
        string $message,
        private readonly string $sqlState = '',
        private readonly string $detail = '',
        private readonly string $hint = '',
        private readonly string $constraint = '',
        ?\Throwable $previous = null,
    ) {
        parent::__construct($message, 0, $previous);
    }

    /** The five-character SQLSTATE code (e.g. "23505"), or '' for client-side errors. */
    public function sqlState(): string
    {
        return $this->sqlState;
    }

    public function detail(): string
    {
        return $this->detail;
    }

    public function hint(): string
    {
        return $this->hint;
    }

    /** The name of the violated constraint, for integrity errors. */
    public function constraint(): string
    {
        return $this->constraint;
    }
}
