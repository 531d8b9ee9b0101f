<?php

declare(strict_types=1);

namespace Bobbin\Http;

use Bobbin\Async\Cancellation;
use Psr\Http\Message\ServerRequestInterface;

/**
 * Every request Bobbin's server hands to an application carries a Cancellation under the
 * attribute ATTRIBUTE. It fires when the request passes --request-timeout (its client got a
 * 503) and when the client closes the connection before the response: pass it to every wait
 * (database queries, IPC, jobs), so abandoned work stops, on the database server too.
 *
 * Under PHP-FPM or in a script there is none: of() returns null, which every Bobbin client
 * takes as "no cancellation".
 */
final class RequestCancellation
{
    public const ATTRIBUTE = 'bobbin.cancellation';

    private function __construct()
    {
    }

    public static function of(ServerRequestInterface $request): ?Cancellation
    {
        $cancellation = $request->getAttribute(self::ATTRIBUTE);

        return $cancellation instanceof Cancellation ? $cancellation : null;
    }
}
