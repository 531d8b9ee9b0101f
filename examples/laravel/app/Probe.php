<?php

declare(strict_types=1);

namespace App;

/** A static property the leak suite sets in one request and looks for in the next. */
final class Probe
{
    public static ?string $value = null;
}
