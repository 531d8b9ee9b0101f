<?php

declare(strict_types=1);

namespace Bobbin\Http\StaticFiles;

use Bobbin\Http\Compression\AcceptEncoding;
use Bobbin\Http\Message\Response;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\RequestHandlerInterface;

/**
 * --static: answers GET and HEAD requests for files under the mounts before the application,
 * which gets every other request (other methods, paths that name no file, directories).
 *
 * A file is served only when its real path (symlinks resolved) lies inside its mount's
 * directory and its name does not end in ".php" (a script's source never leaves the server,
 * and in the legacy mode the application runs it). The file is opened once and its stat taken
 * from the open handle, so the answer describes the bytes sent. Precompressed siblings
 * (FILE.br, FILE.gz, regular files inside the mount) are sent with their Content-Encoding to a
 * client that accepts it. The body is a FileBody the server writes a piece at a time.
 */
final class StaticFilesHandler implements RequestHandlerInterface
{
    /** Precompressed siblings looked for, preferred first. */
    private const SIBLINGS = ['br' => '.br', 'gzip' => '.gz'];

    /** @var list<StaticMount> longest prefix first */
    private readonly array $mounts;
    private readonly SmallFiles $smallFiles;

    /** @param list<StaticMount> $mounts */
    public function __construct(array $mounts, private readonly RequestHandlerInterface $application, private readonly bool $allowDotfiles = false)
    {
        \usort($mounts, static fn (StaticMount $a, StaticMount $b): int => \strlen($b->prefix) <=> \strlen($a->prefix));
        $this->mounts = $mounts;
        $this->smallFiles = new SmallFiles();
    }

    public function handle(ServerRequestInterface $request): ResponseInterface
    {
        $method = $request->getMethod();
        if ($method !== 'GET' && $method !== 'HEAD') {
            return $this->application->handle($request);
        }
        // The target as sent, without building the URI object (most requests are in origin form).
        $target = $request->getRequestTarget();
        $query = \strpos($target, '?');
        $path = !\str_starts_with($target, '/') ? $request->getUri()->getPath() : ($query === false ? $target : \substr($target, 0, $query));
        foreach ($this->mounts as $mount) {
            $below = $mount->below($path);
            if ($below === null) {
                continue;
            }
            $judged = StaticPath::judge($below, $this->allowDotfiles);
            switch ($judged->verdict) {
                case PathVerdict::BadRequest:
                    return self::plain(400);
                case PathVerdict::Refused:
                    return self::plain(404);
                case PathVerdict::Pass:
                    continue 2;
                case PathVerdict::Look:
                    $response = $this->serve($mount, $judged->relative, $request);
                    if ($response !== null) {
                        return $response;
                    }
            }
        }

        return $this->application->handle($request);
    }

    /** The file's response; null when the mount has no such file (the next mount, then the application, may answer). */
    private function serve(StaticMount $mount, string $relative, ServerRequestInterface $request): ?ResponseInterface
    {
        $real = \realpath($mount->directory . $relative);
        if ($real === false || \str_ends_with(\strtolower($real), '.php')) {
            return null;
        }
        if (!$mount->contains($real)) {
            return self::plain(404); // a symlink out of the directory: refused, not handed on
        }
        $encoding = null;
        $varies = false;
        $sent = $real;
        // Without Accept-Encoding no sibling can be sent (and identity is right for every cache): no lookups.
        $accepted = $request->getHeaderLine('accept-encoding');
        if ($accepted !== '') {
            foreach (self::SIBLINGS as $coding => $suffix) {
                $sibling = \realpath($real . $suffix);
                if ($sibling === false || !$mount->contains($sibling) || !\is_file($sibling)) {
                    continue;
                }
                $varies = true;
                if ($encoding === null && AcceptEncoding::choose($accepted, [$coding]) !== null) {
                    $encoding = $coding;
                    $sent = $sibling;
                }
            }
        }
        // PHP remembers the last stat() of a path until told to forget: a file changed on disk must be seen.
        \clearstatcache();
        $stat = @\stat($sent);
        if ($stat === false || ($stat['mode'] & 0170000) !== 0100000) {
            return null; // a directory, a device: never sent
        }
        $conditions = RequestConditions::of($request);
        $plain = $conditions->method === 'GET' && $conditions->ifNoneMatch === null && $conditions->ifModifiedSince === null && $conditions->range === null;
        $variant = $real . "\0" . $encoding . ($varies ? "\0v" : '');
        if ($plain && ($kept = $this->smallFiles->keptResponse($sent, $stat, $variant)) !== null) {
            return $kept; // the usual request for a small file: nothing to decide again
        }
        $file = new FileFacts($stat['size'], $stat['mtime'], $stat['ino'], ContentTypes::for($real), $encoding, $varies);
        $answer = FileAnswers::decide($conditions, $file);
        if (!$answer->sendsBody) {
            return new Response($answer->status, $answer->headers);
        }
        if ($stat['size'] <= SmallFiles::MAX_FILE_BYTES && ($contents = $this->smallFiles->contents($sent, $stat)) !== null) {
            if ($answer->status === 200) {
                return $plain
                    ? $this->smallFiles->keepResponse($sent, $variant, new Response(200, $answer->headers, $contents))
                    : new Response(200, $answer->headers, $contents);
            }

            return new Response($answer->status, $answer->headers, \substr($contents, $answer->offset, $answer->length));
        }
        // A large file (or one that changed under us): opened, and sent from the handle.
        $handle = @\fopen($sent, 'rb');
        if ($handle === false) {
            return null;
        }

        return new Response($answer->status, $answer->headers, new FileBody($handle, $answer->offset, $answer->length));
    }

    private static function plain(int $status): ResponseInterface
    {
        return new Response($status, ['Content-Type' => 'text/plain; charset=utf-8'], $status === 400 ? "400 Bad Request\n" : "404 Not Found\n");
    }
}
