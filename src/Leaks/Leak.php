<?php

declare(strict_types=1);

namespace Bobbin\Leaks;

/** One thing a request left behind: its kind, what it is (a name), and how it changed. */
final readonly class Leak
{
    public function __construct(
        public LeakKind $kind,
        /** e.g. "App\Cart::$items", "$user", "date.timezone", a pool's name, a callback's origin */
        public string $subject,
        public string $detail = '',
    ) {
    }
}
