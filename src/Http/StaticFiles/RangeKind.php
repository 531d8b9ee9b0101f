<?php

declare(strict_types=1);

namespace Bobbin\Http\StaticFiles;

/**
 * What a Range header asks for (ByteRange).
 *
 * @internal ByteRange's result
 */
enum RangeKind
{
    /** The whole representation: no Range, an unknown unit, or several ranges. */
    case Whole;
    /** One range, satisfiable: 206. */
    case Single;
    /** Malformed, or starting past the end: 416. */
    case Unsatisfiable;
}
