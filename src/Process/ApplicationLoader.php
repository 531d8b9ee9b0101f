<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Bobbin\Http\ClosureHandler;
use Closure;
use Psr\Http\Server\RequestHandlerInterface;

/** Requires an APP_FILE and turns what it returns into a PSR-15 handler. */
final class ApplicationLoader
{
    private static ?string $loading = null;

    /**
     * The APP_FILE being loaded right now (its real path), or null: lets code an APP_FILE runs
     * tell `bin/bobbin serve` from PHP-FPM or a plain script (a symfony/runtime runtime does).
     */
    public static function loading(): ?string
    {
        return self::$loading;
    }

    /** @throws ApplicationLoadException */
    public static function load(string $appFile): RequestHandlerInterface
    {
        if (!\is_file($appFile) || !\is_readable($appFile)) {
            throw new ApplicationLoadException(\sprintf('APP_FILE %s does not exist or is not readable', $appFile), true);
        }
        // SCRIPT_FILENAME names the front controller, as under PHP-FPM: symfony/runtime's
        // autoload_runtime.php requires it to get the application.
        $scriptFilename = $_SERVER['SCRIPT_FILENAME'] ?? null;
        $_SERVER['SCRIPT_FILENAME'] = self::$loading = \realpath($appFile) ?: $appFile;
        try {
            $application = (static fn (string $file): mixed => require $file)($appFile);
        } catch (ApplicationHandoffException $handoff) {
            $application = $handoff->handler;
        } catch (\Throwable $error) {
            throw new ApplicationLoadException(\sprintf(
                'APP_FILE %s failed to load: %s: %s (%s:%d)',
                $appFile,
                $error::class,
                $error->getMessage(),
                $error->getFile(),
                $error->getLine(),
            ), false, $error);
        } finally {
            self::$loading = null;
            if ($scriptFilename === null) {
                unset($_SERVER['SCRIPT_FILENAME']);
            } else {
                $_SERVER['SCRIPT_FILENAME'] = $scriptFilename;
            }
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
