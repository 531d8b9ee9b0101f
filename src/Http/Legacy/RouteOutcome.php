<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

/**
 * What --legacy-docroot does with a request path (DocumentRoot::route()).
 *
 * @internal used by the legacy mode
 */
enum RouteOutcome
{
    /** Run a .php file of the document root. */
    case Script;
    /** A directory named without its trailing slash: 301 to the path with it, as nginx does. */
    case AddSlash;
    /** Nothing to run there (a missing .php file, a static file, a path leaving the root): 404. */
    case NotFound;
    /** A directory without index.php: 403, as nginx's index module answers. */
    case Forbidden;
    /** A path that climbs above the root with "..", or holds a NUL byte: 400, as nginx answers. */
    case BadRequest;
}
