<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Frameworks;

use Bobbin\Frameworks\Preload\PreloadScript;
use PHPUnit\Framework\TestCase;

final class PreloadScriptTest extends TestCase
{
    public function testTheScriptCompilesEveryListedFileThatExistsWithoutRunningIt(): void
    {
        $directory = \sys_get_temp_dir() . '/bobbin-preload-' . \bin2hex(\random_bytes(4));
        \mkdir($directory);
        $ran = $directory . '/ran';
        $listed = $directory . "/it's listed.php";
        \file_put_contents($listed, "<?php\nfile_put_contents(" . \var_export($ran, true) . ", 'ran');\n");
        $script = $directory . '/preload.php';
        \file_put_contents($script, PreloadScript::render([$listed, $directory . '/gone.php'], 'a test'));

        \exec(\sprintf('%s -d opcache.enable_cli=1 %s 2>&1', \escapeshellarg(\PHP_BINARY), \escapeshellarg($script)), $output, $status);

        self::assertSame(0, $status, \implode("\n", $output));
        self::assertFileDoesNotExist($ran);
        self::assertStringContainsString('the 2 PHP files', (string) \file_get_contents($script));
        \array_map('unlink', \glob($directory . '/*') ?: []);
        \rmdir($directory);
    }
}
