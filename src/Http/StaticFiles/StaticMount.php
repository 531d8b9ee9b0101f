<?php

declare(strict_types=1);

namespace Bobbin\Http\StaticFiles;

use Bobbin\Http\InvalidConfigException;

/**
 * One --static=[PREFIX=]DIR: the URL prefix (no trailing slash; "" for the root) and the real
 * path of the directory whose files it serves.
 *
 * @immutable
 */
final class StaticMount
{
    private function __construct(public readonly string $prefix, public readonly string $directory)
    {
    }

    /** @throws InvalidConfigException */
    public static function parse(string $option): self
    {
        $prefix = '/';
        $directory = $option;
        $equals = \strpos($option, '=');
        if ($equals !== false && \str_starts_with($option, '/') && \strpos($option, '/') < $equals) {
            // "/assets=public/assets"; a directory whose own name holds "=" is given as ./a=b.
            $prefix = \substr($option, 0, $equals);
            $directory = \substr($option, $equals + 1);
        }
        if (\preg_match('#^(/[A-Za-z0-9._~!$&\'()*+,;:@-]+)*/?$#D', $prefix) !== 1 || \str_contains($prefix, '/.')) {
            throw new InvalidConfigException(\sprintf('--static: the URL prefix "%s" must be a plain path such as /assets', $prefix));
        }
        $real = $directory === '' ? false : \realpath($directory);
        if ($real === false || !\is_dir($real)) {
            throw new InvalidConfigException(\sprintf('--static: %s is not a directory', $directory));
        }

        return new self(\rtrim($prefix, '/'), \rtrim($real, '/'));
    }

    /**
     * The request path below the prefix ("/x.css"), or null when the path is not under it.
     */
    public function below(string $path): ?string
    {
        $prefix = $this->prefix;
        if ($prefix === '') {
            return $path;
        }
        if (!\str_starts_with($path, $prefix)) {
            return null;
        }
        $rest = \substr($path, \strlen($prefix));

        return $rest === '' || $rest[0] === '/' ? $rest : null;
    }

    /** Whether $real (a resolved path) lies inside the directory. */
    public function contains(string $real): bool
    {
        return \str_starts_with($real, $this->directory . '/');
    }
}
