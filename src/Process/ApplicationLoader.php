<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Bobbin\Http\ClosureHandler;
use Closure;
use Psr\Http\Server\RequestHandlerInterface;

/** Requires an APP_FILE and turns what it returns into a PSR-15 handler. */
final class ApplicationLoader
{
    /** @throws ApplicationLoadException */
    public static function load(string $appFile): RequestHandlerInterface
    {
        if (!\is_file($appFile) || !\is_readable($appFile)) {
            throw new ApplicationLoadException(\sprintf('APP_FILE %s does not exist or is not readable', $appFile), true);
        }
        try {
            $application = (static fn (string $file): mixed => require $file)($appFile);
        } catch (\Throwable $error) {
            throw new ApplicationLoadException(\sprintf(
                'APP_FILE %s failed to load: %s: %s (%s:%d)',
                $appFile,
                $error::class,
                $error->getMessage(),
                $error->getFile(),
                $error->getLine(),
            ), false, $error);
        }
        if ($application instanceof RequestHandlerInterface) {
            return $application;
        }
        if ($application instanceof Closure) {
            return new ClosureHandler($application);
        }

        throw new ApplicationLoadException(\sprintf(
            'APP_FILE %s returned %s, not a RequestHandlerInterface or a Closure',
            $appFile,
            \get_debug_type($application),
        ), true);
    }
}
