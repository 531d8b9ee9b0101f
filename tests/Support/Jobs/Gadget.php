<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Jobs;

/**
 * What an attacker looks for in vendor/: a class whose __wakeup()/__destruct() does something
 * with its properties. Here it appends to the file its $marker names, so a test can tell whether
 * an object of it was ever made from a payload.
 */
final class Gadget
{
    public function __construct(public string $marker = '')
    {
    }

    public function __wakeup(): void
    {
        $this->mark('wakeup');
    }

    public function __destruct()
    {
        $this->mark('destruct');
    }

    /** A serialized Gadget pointing at $marker, as an attacker would write it by hand. */
    public static function payload(string $marker): string
    {
        return \sprintf('O:%d:"%s":1:{s:6:"marker";s:%d:"%s";}', \strlen(self::class), self::class, \strlen($marker), $marker);
    }

    private function mark(string $what): void
    {
        if ($this->marker !== '') {
            @\file_put_contents($this->marker, $what . ' ' . \getmypid() . "\n", \FILE_APPEND);
        }
    }
}
