<?php

declare(strict_types=1);

namespace Bobbin\Frameworks;

use Bobbin\Async\Cancellation;

/**
 * The cancellation of the request an adapter has let into the framework, for code that cannot
 * be handed it: a Doctrine or Laravel database connection is called by framework code that
 * knows nothing of Bobbin. Set only while one request at a time is inside (the gate), so it is
 * never another request's; null outside requests and under PHP-FPM.
 */
final class RequestScope
{
    private static ?Cancellation $cancellation = null;

    private function __construct()
    {
    }

    public static function cancellation(): ?Cancellation
    {
        return self::$cancellation;
    }

    public static function enter(?Cancellation $cancellation): void
    {
        self::$cancellation = $cancellation;
    }

    public static function leave(): void
    {
        self::$cancellation = null;
    }
}
