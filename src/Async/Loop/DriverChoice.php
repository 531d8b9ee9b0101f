<?php

declare(strict_types=1);

namespace Bobbin\Async\Loop;

use Revolt\EventLoop\Driver;
use Revolt\EventLoop\DriverFactory;

/**
 * Which loop driver a Bobbin process runs, by BOBBIN_LOOP_DRIVER:
 *  - unset, empty or "bobbin": Bobbin's driver on epoll where it works (Linux, FFI allowed in
 *    this SAPI: the CLI by default, not PHP-FPM), else on stream_select();
 *  - "epoll" or "select": Bobbin's driver on that poller (epoll fails where it cannot work);
 *  - "revolt": whatever Revolt's DriverFactory picks (e.g. for an ev/uv extension).
 */
final class DriverChoice
{
    public static function create(): Driver
    {
        $choice = \getenv('BOBBIN_LOOP_DRIVER');

        return match ($choice === false ? '' : $choice) {
            '', 'bobbin' => BobbinDriver::fromEnvironment(self::bestPoller()),
            'epoll' => BobbinDriver::fromEnvironment(EpollPoller::create()),
            'select' => BobbinDriver::fromEnvironment(new SelectPoller()),
            'revolt' => (new DriverFactory())->create(),
            default => throw new \ValueError(\sprintf('BOBBIN_LOOP_DRIVER must be "bobbin", "epoll", "select" or "revolt", got "%s"', $choice)),
        };
    }

    /** epoll where it works, stream_select() elsewhere. */
    public static function bestPoller(): Poller
    {
        if (!self::ffiAllowed()) {
            return new SelectPoller();
        }
        try {
            return EpollPoller::create();
        } catch (EpollUnavailableException) {
            return new SelectPoller();
        }
    }

    /**
     * Whether ffi.enable lets this SAPI use FFI, asked without touching FFI: under PHP-FPM (the
     * default "preload") every request would otherwise pay for a refused FFI::cdef().
     */
    private static function ffiAllowed(): bool
    {
        if (\PHP_OS_FAMILY !== 'Linux' || !\extension_loaded('ffi')) {
            return false;
        }
        $setting = \strtolower((string) \ini_get('ffi.enable'));

        return \in_array($setting, ['1', 'on', 'true', 'yes'], true)
            || ($setting === 'preload' && (\PHP_SAPI === 'cli' || \PHP_SAPI === 'phpdbg'));
    }
}
