<?php
// A function with a static variable and a class with a static property: both start at zero
// under PHP-FPM on every request.
function legacy_counter()
{
    static $calls = 0;

    return ++$calls;
}

final class LegacyCounter
{
    public static $calls = 0;
}
