<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Exception;

/** A foreign key forbids the change (1451, 1452, 1216, 1217). */
final class ForeignKeyViolationException extends IntegrityConstraintViolationException
{
}
