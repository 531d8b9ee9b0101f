<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Contract;

use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * src/Http shows its public API: the classes listed here (and in docs/HTTP.md, "Public API")
 * carry no @internal; every other one says @internal in its class docblock.
 */
final class HttpPublicApiTest extends TestCase
{
    private const PUBLIC_API = [
        'Server', 'ServerConfig', 'ListenAddress', 'ServerStartException', 'InvalidConfigException',
        'ConnectionStatistics', 'ConnectionDrop', 'ServerMetrics', 'RunningRequest',
        'RequestCancellation', 'RequestIds', 'ClosureHandler', 'Sapi\SapiRunner',
        'Message\MessageFactory', 'Message\Response', 'Message\ServerRequest', 'Message\StringStream',
        'Message\UploadedFile', 'Message\Uri', 'Message\GeneratorStream', 'Message\EventStream', 'Message\ServerSentEvent',
        'Legacy\LegacyConfig', 'Legacy\LegacyGateway', 'Legacy\GlobalScopeHandoffException', 'Legacy\ScriptKilledException',
        'StderrLogger', 'RateLimitedLogger',
        'WebSocket\WebSocketUpgrade', 'WebSocket\WebSocket', 'WebSocket\WebSocketOptions', 'WebSocket\Message', 'WebSocket\CloseCode', 'WebSocket\WebSocketClosedException',
        'StaticFiles\StaticFilesHandler', 'StaticFiles\StaticMount',
    ];

    /** @return iterable<string, array{class-string, bool}> */
    public static function httpClasses(): iterable
    {
        $root = \dirname(__DIR__, 3) . '/src/Http/';
        $files = new \RecursiveIteratorIterator(new \RecursiveDirectoryIterator($root, \FilesystemIterator::SKIP_DOTS));
        foreach ($files as $file) {
            \assert($file instanceof \SplFileInfo);
            $relative = \str_replace('/', '\\', \substr($file->getPathname(), \strlen($root), -4));
            /** @var class-string $class */
            $class = 'Bobbin\Http\\' . $relative;
            yield $relative => [$class, \in_array($relative, self::PUBLIC_API, true)];
        }
    }

    /** @param class-string $class */
    #[DataProvider('httpClasses')]
    public function testEachClassIsPublicApiOrMarkedInternal(string $class, bool $public): void
    {
        $doc = (string) (new \ReflectionClass($class))->getDocComment();
        if ($public) {
            self::assertStringNotContainsString('@internal', $doc, $class . ' is public API (docs/HTTP.md)');
        } else {
            self::assertMatchesRegularExpression('/^\s*\*?\s*@internal\b/m', $doc, $class . ' is neither in docs/HTTP.md\'s public API nor @internal');
        }
    }

    public function testThePublicApiListedInTheDocsIsTheOneTestedHere(): void
    {
        $docs = (string) \file_get_contents(\dirname(__DIR__, 3) . '/docs/HTTP.md');
        $section = \explode('## Pieces', \explode('## Public API', $docs, 2)[1] ?? '', 2)[0];
        foreach (self::PUBLIC_API as $class) {
            self::assertStringContainsString('`' . $class . '`', \str_replace('\\\\', '\\', $section), $class);
        }
    }
}
