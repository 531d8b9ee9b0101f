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

    public function isInstalled(): bool
    {
        return \is_file($this->directory() . '/vendor/autoload.php');
    }
}
