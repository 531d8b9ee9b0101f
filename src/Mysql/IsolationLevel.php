<?php

declare(strict_types=1);

namespace Bobbin\Mysql;

enum IsolationLevel: string implements \Bobbin\Sql\IsolationLevel
{
    case ReadUncommitted = 'READ UNCOMMITTED';
    case ReadCommitted = 'READ COMMITTED';
    case RepeatableRead = 'REPEATABLE READ';
    case Serializable = 'SERIALIZABLE';

    public function sql(): string
    {
        return $this->value;
    }
}
