<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Symfony;

use Bobbin\Async\Async;
use Bobbin\Frameworks\Concurrency;
use Bobbin\Frameworks\RequestGate;
use Bobbin\Frameworks\StaticProperties;
use Bobbin\Process\ApplicationLoader;
use Symfony\Component\HttpKernel\HttpKernelInterface;
use Symfony\Component\Runtime\RunnerInterface;
use Symfony\Component\Runtime\SymfonyRuntime;

/**
 * symfony/runtime's runtime for Bobbin: `APP_RUNTIME=Bobbin\Frameworks\Symfony\Runtime
 * bin/bobbin serve public/index.php`, or `"extra": {"runtime": {"class": "Bobbin\\Frameworks\\Symfony\\Runtime"}}`
 * in composer.json. public/index.php stays as Symfony generates it.
 *
 * Under `bin/bobbin serve` (ApplicationLoader is loading the front controller) an HttpKernel
 * becomes a KernelHandler handed to the loader; everywhere else — PHP-FPM, bin/console, a
 * plain `php public/index.php` — this is SymfonyRuntime, unchanged.
 *
 * Under Bobbin it also: sets the runtime mode to web + worker (APP_RUNTIME_MODE=web=1&worker=1,
 * as FrankenPHP's worker does), so Symfony picks its HTML error renderer and web logging rather
 * than the CLI ones PHP_SAPI=cli would select — production error pages show no trace; and hides
 * bin/bobbin's own command line from the console input parsing (`--env`, `--no-debug`).
 *
 * Options (runtime options: APP_RUNTIME_OPTIONS or composer.json extra.runtime), beside
 * SymfonyRuntime's: "concurrency" ("one", the default; BOBBIN_CONCURRENCY overrides) and
 * "reset_statics" (classes whose static properties are put back after each request).
 */
class Runtime extends SymfonyRuntime
{
    private readonly bool $underBobbin;

    /** @param array<string, mixed> $options */
    public function __construct(array $options = [])
    {
        $this->underBobbin = \class_exists(ApplicationLoader::class) && ApplicationLoader::loading() !== null;
        if (!$this->underBobbin) {
            // PHP-FPM or bin/console: the database drivers wait in blocking mode, on Bobbin's
            // loop driver as under bin/bobbin (the autoloader no longer installs it).
            Async::installLoopDriver();
            parent::__construct($options);

            return;
        }
        if (!isset($_SERVER['APP_RUNTIME_MODE']) && !isset($_ENV['APP_RUNTIME_MODE'])) {
            $_SERVER['APP_RUNTIME_MODE'] = $_ENV['APP_RUNTIME_MODE'] = 'web=1&worker=1';
        }
        $argv = $_SERVER['argv'] ?? null;
        unset($_SERVER['argv']);
        try {
            parent::__construct($options);
        } finally {
            if ($argv !== null) {
                $_SERVER['argv'] = $argv;
            }
        }
    }

    public function getRunner(?object $application): RunnerInterface
    {
        if (!$this->underBobbin || !$application instanceof HttpKernelInterface) {
            return parent::getRunner($application);
        }
        $concurrency = Concurrency::fromEnvironment(Concurrency::tryFrom((string) ($this->options['concurrency'] ?? 'one')) ?? Concurrency::OneAtATime);
        if ($concurrency !== Concurrency::OneAtATime) {
            throw new \LogicException('A Symfony kernel keeps the current request, user and session in shared services: Bobbin serves it one request at a time per worker (BOBBIN_CONCURRENCY=concurrent is not available for it yet)');
        }
        /** @var list<class-string> $statics */
        $statics = (array) ($this->options['reset_statics'] ?? []);
        $resets = $statics === [] ? [] : [StaticProperties::capture(...$statics)->restore(...)];

        return new HandoffRunner(new KernelHandler($application, new RequestGate($concurrency), $resets));
    }
}
