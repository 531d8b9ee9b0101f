<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Frameworks;

/** The example applications under examples/, and how each is served by Bobbin and by PHP-FPM. */
enum ExampleApp: string
{
    case Slim = 'slim';
    case Symfony = 'symfony';
    case Laravel = 'laravel';

    public function directory(): string
    {
        return \dirname(__DIR__, 3) . '/examples/' . $this->value;
    }

    /** What `bin/bobbin serve` is pointed at. */
    public function bobbinAppFile(): string
    {
        return $this->directory() . match ($this) {
            self::Slim => '/app.php',
            self::Symfony => '/public/index.php',
            self::Laravel => '/bobbin.php',
        };
    }

    /** What nginx + PHP-FPM route every path to. */
    public function fpmFrontController(): string
    {
        return $this->directory() . '/public/index.php';
    }

    /**
     * The example's own commands that create the tables it uses (idempotent), as docs/FRAMEWORKS.md
     * tells a user to run them; DATABASE_URL in the environment. Symfony's prod container is
     * cached without a freshness check: a deploy clears it first, and so does this.
     *
     * @return list<list<string>>
     */
    public function schemaCommands(): array
    {
        return match ($this) {
            self::Slim => [[\PHP_BINARY, $this->directory() . '/bin/create-schema.php']],
            self::Symfony => [
                [\PHP_BINARY, $this->directory() . '/bin/console', 'cache:clear'],
                [\PHP_BINARY, $this->directory() . '/bin/console', 'app:create-schema'],
            ],
            self::Laravel => [[\PHP_BINARY, $this->directory() . '/artisan', 'app:create-schema']],
        };
    }

        public function isInstalled(): bool
    {
        return \is_file($this->directory() . '/vendor/autoload.php');
    }
}
