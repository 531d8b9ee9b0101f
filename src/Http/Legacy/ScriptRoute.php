<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

/**
 * Where DocumentRoot sends one request: the script to run and the $_SERVER keys nginx +
 * PHP-FPM set for it, or why nothing runs. Travels to the script's process as a request
 * attribute (ATTRIBUTE).
 *
 * @internal used by the legacy mode (--legacy-docroot)
 */
final readonly class ScriptRoute
{
    public const ATTRIBUTE = 'bobbin.legacy.script_route';

    /**
     * @param string $scriptFilename the file to include (Script), as $document_root$fastcgi_script_name
     * @param string $scriptName the path of that file under the root, from "/" (Script); for AddSlash, the path to redirect to
     */
    private function __construct(
        public RouteOutcome $outcome,
        public string $documentRoot,
        public string $scriptFilename,
        public string $scriptName,
        public string $reason,
    ) {
    }

    public static function script(string $documentRoot, string $scriptName): self
    {
        return new self(RouteOutcome::Script, $documentRoot, $documentRoot . $scriptName, $scriptName, '');
    }

    public static function addSlash(string $documentRoot, string $path): self
    {
        return new self(RouteOutcome::AddSlash, $documentRoot, '', $path . '/', '');
    }

    public static function refused(RouteOutcome $outcome, string $documentRoot, string $reason): self
    {
        return new self($outcome, $documentRoot, '', '', $reason);
    }

    /**
     * The script keys of $_SERVER as Debian's nginx (fastcgi_params, try_files) and PHP-FPM set
     * them: PHP_SELF is SCRIPT_NAME (no PATH_INFO), DOCUMENT_URI the path after the rewrite.
     *
     * @return array<string, string>
     */
    public function serverParams(): array
    {
        return [
            'SCRIPT_FILENAME' => $this->scriptFilename,
            'SCRIPT_NAME' => $this->scriptName,
            'PHP_SELF' => $this->scriptName,
            'DOCUMENT_URI' => $this->scriptName,
            'DOCUMENT_ROOT' => $this->documentRoot,
        ];
    }
}
