<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Internal;

/**
 * A request's bytes were built from names the schema cache held, and the cache changed before an
 * attempt (a reconnect, or the server's ER_WRONG_SCHEMA_VERSION): the caller builds them again,
 * resolving the names, with the attempts made so far carried over. Never leaves the Connection.
 *
 * @internal
 */
final class StaleNames extends \RuntimeException
{
    public function __construct(public readonly bool $resent, public readonly bool $reread)
    {
        parent::__construct('The names the request was built from changed');
    }
}
