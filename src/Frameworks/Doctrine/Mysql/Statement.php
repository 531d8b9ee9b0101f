<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Doctrine\Mysql;

use Bobbin\Frameworks\Database\MysqlSession;
use Bobbin\Frameworks\Doctrine\Result;
use Bobbin\Mysql\Exception\MysqlException;
use Doctrine\DBAL\Driver\Statement as DriverStatement;
use Doctrine\DBAL\ParameterType;

/**
 * A statement with its values: nothing is sent until execute(), which runs it as a prepared
 * statement (the client caches the server-side statement per SQL text).
 */
final class Statement implements DriverStatement
{
    /** @var array<int, mixed> by 1-based position */
    private array $values = [];

    public function __construct(private readonly MysqlSession $session, private readonly string $sql)
    {
    }

    public function bindValue(int|string $param, mixed $value, ParameterType $type): void
    {
        if (!\is_int($param) || $param < 1) {
            throw new \InvalidArgumentException(\sprintf('MySQL statements take positional parameters (1, 2, …), not %s', \is_string($param) ? $param : "#$param"));
        }
        if (\is_resource($value)) {
            $value = (string) \stream_get_contents($value);
        }
        $this->values[$param] = match (true) {
            $value === null => null,
            $type === ParameterType::BOOLEAN => (int) (bool) $value,
            $type === ParameterType::INTEGER => \is_int($value) ? $value : (int) $value,
            default => $value,
        };
    }

    public function execute(): Result
    {
        $params = [];
        $count = $this->values === [] ? 0 : \max(\array_keys($this->values));
        for ($position = 1; $position <= $count; $position++) {
            $params[] = $this->values[$position] ?? null;
        }
        try {
            $result = $this->session->query($this->sql, $params);
        } catch (MysqlException $error) {
            throw DriverException::from($error);
        }

        return new Result($result->rows, $result->affectedRows);
    }
}
