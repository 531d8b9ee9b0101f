<?php

declare(strict_types=1);

namespace Bobbin\Tarantool;

/** How select() walks an index from its key (box.index iterator types, by their protocol numbers). */
enum Iterator: int
{
    case Eq = 0;
    case Req = 1;
    case All = 2;
    case Lt = 3;
    case Le = 4;
    case Ge = 5;
    case Gt = 6;
    case BitsAllSet = 7;
    case BitsAnySet = 8;
    case BitsAllNotSet = 9;
    case Overlaps = 10;
    case Neighbor = 11;
}
