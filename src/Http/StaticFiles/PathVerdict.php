<?php

declare(strict_types=1);

namespace Bobbin\Http\StaticFiles;

/**
 * What a request path under a static mount may be (StaticPath).
 *
 * @internal StaticPath's verdict
 */
enum PathVerdict
{
    /** A file name to look for. */
    case Look;
    /** Not a file this server serves: the application gets the request. */
    case Pass;
    /** ".." or "." segments, a NUL, bad percent-encoding: 400. */
    case BadRequest;
    /** A dotfile while they are refused: 404. */
    case Refused;
}
