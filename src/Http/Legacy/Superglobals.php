<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

use Bobbin\Http\Message\UploadedFile;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Message\UploadedFileInterface;

/**
 * A request as PHP-FPM presents it to a script: the values of $_GET, $_POST, $_COOKIE, $_FILES,
 * $_SERVER and $_REQUEST. Pure: built from the PSR-7 request, assigned by LegacyLoop.
 *
 * @internal built by the script loops
 */
final readonly class Superglobals
{
    /**
     * @param array<array-key, mixed> $get
     * @param array<array-key, mixed> $post
     * @param array<array-key, mixed> $cookie
     * @param array<array-key, mixed> $files
     * @param array<array-key, mixed> $server
     * @param array<array-key, mixed> $request
     */
    private function __construct(
        public array $get,
        public array $post,
        public array $cookie,
        public array $files,
        public array $server,
        public array $request,
        public string $input,
    ) {
    }

    /** @param string $requestOrder which of G, P and C make $_REQUEST, in order (php.ini's request_order) */
    public static function of(ServerRequestInterface $request, string $requestOrder = 'GP'): self
    {
        $get = $request->getQueryParams();
        $parsed = $request->getParsedBody();
        $post = \is_array($parsed) ? $parsed : [];
        $cookie = $request->getCookieParams();
        $merged = [];
        foreach (\str_split(\strtoupper($requestOrder)) as $source) {
            $merged = match ($source) {
                'G' => \array_replace($merged, $get),
                'P' => \array_replace($merged, $post),
                'C' => \array_replace($merged, $cookie),
                default => $merged,
            };
        }
        $files = [];
        foreach ($request->getUploadedFiles() as $field => $tree) {
            $files[$field] = \is_array($tree) ? self::nestedFileEntry($tree) : self::fileEntry($tree);
        }

        // PHP reads a multipart body itself, and php://input is then empty.
        $multipart = $request->getMethod() === 'POST' && \stripos($request->getHeaderLine('Content-Type'), 'multipart/form-data') === 0;

        return new self($get, $post, $cookie, $files, $request->getServerParams(), $merged, $multipart ? '' : (string) $request->getBody());
    }

    /** @return array{name: string, full_path: string, type: string, tmp_name: string, error: int, size: int} */
    private static function fileEntry(UploadedFileInterface $file): array
    {
        return [
            'name' => (string) $file->getClientFilename(),
            'full_path' => (string) $file->getClientFilename(),
            'type' => (string) $file->getClientMediaType(),
            'tmp_name' => $file instanceof UploadedFile ? $file->temporaryPath() : '',
            'error' => $file->getError(),
            'size' => (int) $file->getSize(),
        ];
    }

    /**
     * A field with brackets ("f[]", "f[a][b]") gives $_FILES['f'] the shape PHP gives it: one
     * tree per attribute (name, type, tmp_name…), each nested as the brackets were.
     *
     * @param array<array-key, mixed> $tree
     * @return array<string, array<array-key, mixed>>
     */
    private static function nestedFileEntry(array $tree): array
    {
        $entry = [];
        foreach (['name', 'full_path', 'type', 'tmp_name', 'error', 'size'] as $attribute) {
            $entry[$attribute] = self::attributeTree($tree, $attribute);
        }

        return $entry;
    }

    /**
     * @param array<array-key, mixed> $tree
     * @return array<array-key, mixed>
     */
    private static function attributeTree(array $tree, string $attribute): array
    {
        $out = [];
        foreach ($tree as $key => $node) {
            $out[$key] = $node instanceof UploadedFileInterface ? self::fileEntry($node)[$attribute] : (\is_array($node) ? self::attributeTree($node, $attribute) : null);
        }

        return $out;
    }
}
