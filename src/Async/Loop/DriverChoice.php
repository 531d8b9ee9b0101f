<?php

declare(strict_types=1);

namespace Bobbin\Async\Loop;

use Revolt\EventLoop\Driver;
use Revolt\EventLoop\DriverFactory;

/**
 * Which loop driver a Bobbin process runs, by BOBBIN_LOOP_DRIVER: "bobbin" (the default) or
 * "select", Bobbin's driver on stream_select(); "revolt", whatever Revolt's DriverFactory picks
 * (e.g. for an ev/uv extension).
 */
final class DriverChoice
{
    public static function create(): Driver
    {
        $choice = \getenv('BOBBIN_LOOP_DRIVER');

        return match ($choice === false ? '' : $choice) {
            '', 'bobbin', 'select' => BobbinDriver::fromEnvironment(new SelectPoller()),
            'revolt' => (new DriverFactory())->create(),
            default => throw new \ValueError(\sprintf('BOBBIN_LOOP_DRIVER must be "bobbin", "select" or "revolt", got "%s"', $choice)),
        };
    }
}
