<?php

declare(strict_types=1);

namespace App;

/**
 * A static property: the kind of state a long-lived worker keeps from one request to the next
 * and PHP-FPM forgets. The leak suite sets it in one request and looks for it in the next.
 */
final class Probe
{
    public static ?string $value = null;
}
