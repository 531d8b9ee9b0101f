<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Doctrine\Mysql;

use Bobbin\Mysql\Exception\AccessDeniedException;
use Bobbin\Mysql\Exception\ConnectException;
use Bobbin\Mysql\Exception\ConnectionLostException;
use Bobbin\Mysql\Exception\MysqlException;
use Doctrine\DBAL\Driver\AbstractException;

/**
 * A MySQL error as DBAL's driver layer reports it: DBAL's MySQL exception converter reads the
 * server's error number (1062 a unique violation, 1146 a missing table, …). Errors of the
 * client itself carry the numbers libmysqlclient gives them: 2002 for a connection that could
 * not be made, 2006 for one that was lost.
 */
final class DriverException extends AbstractException
{
    private const CONNECTION_ERROR = 2002;
    private const SERVER_GONE = 2006;

    public static function from(MysqlException $error): self
    {
        $code = match (true) {
            $error instanceof AccessDeniedException => $error->errorCode() !== 0 ? $error->errorCode() : 1045,
            $error instanceof ConnectException => $error->errorCode() !== 0 ? $error->errorCode() : self::CONNECTION_ERROR,
            $error instanceof ConnectionLostException => self::SERVER_GONE,
            default => $error->errorCode(),
        };

        return new self($error->getMessage(), $error->sqlState() !== '' ? $error->sqlState() : null, $code, $error);
    }
}
