<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Exception;

use Bobbin\Async\OutcomeUnknown;

/**
 * A statement was cancelled (the caller's cancellation, its timeout) after it was sent, and the
 * server did not confirm within the settle time whether it ran: it may or may not have taken
 * effect. The connection goes on draining it in the background. The previous exception is the
 * cancellation.
 */
final class OutcomeUnknownException extends MysqlException implements OutcomeUnknown
{
}
