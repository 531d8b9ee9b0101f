<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Legacy\Apps;

/** A step of an application scenario did not get what a browser gets from it under PHP-FPM. */
final class ScenarioFailure extends \RuntimeException
{
}
