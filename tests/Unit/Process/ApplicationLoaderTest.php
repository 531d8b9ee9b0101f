<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Process;

use Bobbin\Http\ClosureHandler;
use Bobbin\Process\ApplicationLoader;
use PHPUnit\Framework\TestCase;

final class ApplicationLoaderTest extends TestCase
{
    private string $directory;

    protected function setUp(): void
    {
        $this->directory = \sys_get_temp_dir() . '/bobbin-loader-' . \bin2hex(\random_bytes(4));
        \mkdir($this->directory);
    }

    protected function tearDown(): void
    {
        \array_map('unlink', \glob($this->directory . '/*') ?: []);
        \rmdir($this->directory);
    }

    private function appFile(string $code): string
    {
        $file = $this->directory . '/app-' . \bin2hex(\random_bytes(4)) . '.php';
        \file_put_contents($file, "<?php\n" . $code);

        return $file;
    }

    public function testAnAppFileThatCannotReturnItsHandlerHandsItOverByThrowing(): void
    {
        $file = $this->appFile(<<<'PHP'
            throw new Bobbin\Process\ApplicationHandoffException(
                new Bobbin\Http\ClosureHandler(static fn () => new Bobbin\Http\Message\Response(204)),
            );
            exit(1);
            PHP);

        $handler = ApplicationLoader::load($file);

        self::assertInstanceOf(ClosureHandler::class, $handler);
    }

    public function testWhileItLoadsTheAppFileIsTheScriptFilenameAndLoadingNamesIt(): void
    {
        $before = $_SERVER['SCRIPT_FILENAME'] ?? null;
        $file = $this->appFile(<<<'PHP'
            $GLOBALS['bobbinSeen'] = [$_SERVER['SCRIPT_FILENAME'], Bobbin\Process\ApplicationLoader::loading()];
            return static fn () => new Bobbin\Http\Message\Response(200);
            PHP);

        ApplicationLoader::load($file);

        self::assertSame([\realpath($file), \realpath($file)], $GLOBALS['bobbinSeen']);
        self::assertSame($before, $_SERVER['SCRIPT_FILENAME'] ?? null);
        self::assertNull(ApplicationLoader::loading());
        unset($GLOBALS['bobbinSeen']);
    }
}
