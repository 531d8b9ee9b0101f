<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Doctrine;

use Bobbin\Frameworks\Database\Session;
use Bobbin\Postgres\Exception\PostgresException;
use Doctrine\DBAL\Driver\Statement as DriverStatement;
use Doctrine\DBAL\ParameterType;

/**
 * A statement with its values: nothing is sent until execute(), which runs it as one prepared
 * statement of the session's connection (Bobbin caches the server-side statement per SQL text).
 */
final class Statement implements DriverStatement
{
    /** @var array<int, mixed> by $number */
    private array $values = [];

    /** @param array<int|string, int> $map placeholder (1-based position or name) => $number */
    public function __construct(
        private readonly Session $session,
        private readonly string $sql,
        private readonly array $map,
    ) {
    }

    public function bindValue(int|string $param, mixed $value, ParameterType $type): void
    {
        $key = \is_string($param) ? \ltrim($param, ':') : $param;
        $number = $this->map[$key] ?? throw new \InvalidArgumentException(\sprintf('The statement has no parameter %s', \is_string($param) ? $param : "#$param"));
        $this->values[$number] = match (true) {
            $value === null => null,
            $type === ParameterType::BINARY, $type === ParameterType::LARGE_OBJECT => Session::binary($value),
            $type === ParameterType::BOOLEAN => (bool) $value,
            $type === ParameterType::INTEGER => \is_int($value) ? $value : (int) $value,
            default => $value,
        };
    }

    public function execute(): Result
    {
        $params = [];
        for ($number = 1, $count = \count(\array_unique($this->map)); $number <= $count; $number++) {
            $params[] = $this->values[$number] ?? null;
        }
        try {
            $result = $this->session->query($this->sql, $params);

            return new Result($result->rows, $result->affectedRows);
        } catch (PostgresException $error) {
            throw DriverException::from($error);
        }
    }
}
