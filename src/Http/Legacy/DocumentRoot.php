<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

/**
 * `--legacy-docroot=DIR`: which file of a multi-file classic application (WordPress, Adminer…)
 * a request path runs, as nginx's usual configuration for them decides:
 *
 *     location / { index index.php; try_files $uri $uri/ /index.php?$args; }
 *     location ~ \.php$ { try_files $uri =404; fastcgi_pass …; }
 *
 * - a path ending in ".php" runs that file, or is a 404 when there is none;
 * - a directory runs its index.php (403 without one); named without its slash, a 301 adds it;
 * - any other path that names nothing runs DIR/index.php (WordPress's pretty permalinks), a 404
 *   when the root has no index.php.
 *
 * Two rules nginx does not have, so that nothing but the application's own scripts ever runs:
 * a file is run only when its name ends in ".php" (the server's static handler, StaticFiles,
 * serves the other files for GET and HEAD before a request gets here; any other method on one
 * is a 404), and never when its real path, symlinks resolved, lies outside DIR. A path that climbs above DIR with ".." is a 400, as in nginx.
 *
 * No I/O beyond looking at the file system; one instance serves every request of a worker.
 *
 * @internal used by the legacy mode (--legacy-docroot)
 */
final readonly class DocumentRoot
{
    public const FRONT_CONTROLLER = '/index.php';
    public const STATIC_FILE_REASON = 'a static file is served for GET and HEAD only (by the static handler before this), and never run';

    /** The directory, its real path, without a trailing slash ("" for "/"). */
    public string $directory;

    /** @throws \InvalidArgumentException when $directory is not a directory */
    public function __construct(string $directory)
    {
        $real = \realpath($directory);
        if ($real === false || !\is_dir($real)) {
            throw new \InvalidArgumentException(\sprintf('--legacy-docroot: %s is not a directory', $directory));
        }
        $this->directory = \rtrim($real, '/');
    }

    /** @param string $path the request's path as sent (percent-encoded), without the query */
    public function route(string $path): ScriptRoute
    {
        $uri = self::normalize($path);
        if ($uri === null) {
            return ScriptRoute::refused(RouteOutcome::BadRequest, $this->directory, 'the path leaves the document root');
        }
        if (\str_ends_with($uri, '.php')) {
            return $this->isRunnable($uri)
                ? ScriptRoute::script($this->directory, $uri)
                : ScriptRoute::refused(RouteOutcome::NotFound, $this->directory, 'no such script');
        }
        $target = $this->directory . \rtrim($uri, '/');
        $real = \realpath($target === '' ? '/' : $target);
        if ($real === false) {
            return $this->frontController();
        }
        if (!$this->contains($real)) {
            return ScriptRoute::refused(RouteOutcome::NotFound, $this->directory, 'the path leads out of the document root');
        }
        if (\is_dir($real)) {
            if (!\str_ends_with($uri, '/')) {
                return ScriptRoute::addSlash($this->directory, $uri);
            }

            return $this->isRunnable($uri . 'index.php')
                ? ScriptRoute::script($this->directory, $uri . 'index.php')
                : ScriptRoute::refused(RouteOutcome::Forbidden, $this->directory, 'a directory without index.php');
        }
        if (\is_file($real)) {
            return ScriptRoute::refused(RouteOutcome::NotFound, $this->directory, self::STATIC_FILE_REASON);
        }

        return $this->frontController();
    }

    private function frontController(): ScriptRoute
    {
        return $this->isRunnable(self::FRONT_CONTROLLER)
            ? ScriptRoute::script($this->directory, self::FRONT_CONTROLLER)
            : ScriptRoute::refused(RouteOutcome::NotFound, $this->directory, 'no such file, and no index.php to send it to');
    }

    /** A regular .php file whose real path is inside the root. */
    private function isRunnable(string $uri): bool
    {
        $real = \realpath($this->directory . $uri);

        return $real !== false && \str_ends_with($real, '.php') && \is_file($real) && $this->contains($real);
    }

    private function contains(string $real): bool
    {
        return $real === $this->directory || \str_starts_with($real, $this->directory . '/');
    }

    /**
     * nginx's $uri: the path decoded, "//" merged, "." and ".." resolved; null when ".." climbs
     * above the root or the path is not one nginx would take (not absolute, a NUL byte).
     */
    private static function normalize(string $path): ?string
    {
        $decoded = \rawurldecode($path);
        if ($decoded === '' || $decoded[0] !== '/' || \str_contains($decoded, "\0")) {
            return null;
        }
        $segments = [];
        foreach (\explode('/', $decoded) as $segment) {
            if ($segment === '..') {
                if ($segments === []) {
                    return null;
                }
                \array_pop($segments);
            } elseif ($segment !== '.' && $segment !== '') {
                $segments[] = $segment;
            }
        }
        $trailing = \preg_match('~/(\.\.?)?$~', $decoded) === 1;

        return '/' . \implode('/', $segments) . ($trailing && $segments !== [] ? '/' : '');
    }
}
