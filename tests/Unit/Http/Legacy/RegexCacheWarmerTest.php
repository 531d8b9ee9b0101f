<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\Legacy;

use Bobbin\Http\Legacy\ChildProcessCalls;
use Bobbin\Http\Legacy\RegexCacheWarmer;
use PHPUnit\Framework\TestCase;

final class RegexCacheWarmerTest extends TestCase
{
    public function testOnlyPatternsWrittenAsLiteralsInPregCallsAreFound(): void
    {
        $source = <<<'PHP'
            <?php
            preg_match('/^a\'b\\d$/i', $x);
            \preg_replace("/\t\x41\$/", '', $y);
            preg_split( /* why */ '~,~' , $z);
            preg_match($pattern, $x);
            preg_match('/' . $x . '/', $y);
            preg_quote('/not a pattern/', '/');
            $o->preg_match('/a method/', $x);
            function preg_grep($p, $a) {}
            PHP;

        self::assertSame(["/^a'b\\d$/i", "/\tA$/", '~,~'], RegexCacheWarmer::patternsIn($source));
    }

    public function testWarmingCompilesTheTreesPatternsAndLeavesNoErrorBehind(): void
    {
        self::assertTrue(ChildProcessCalls::bind());
        $directory = \sys_get_temp_dir() . '/bobbin-regex-warm-' . \bin2hex(\random_bytes(4));
        \mkdir($directory . '/lib', 0o777, true);
        try {
            \file_put_contents($directory . '/index.php', "<?php preg_match('/^index$/', \$x); preg_match('/(bad/', \$x);");
            \file_put_contents($directory . '/lib/a.php', "<?php preg_replace('/lib/u', '', \$x); preg_match('/^index$/', \$x);");
            \file_put_contents($directory . '/notes.txt', "preg_match('/not php/', \$x);");

            self::assertSame(2, RegexCacheWarmer::warm($directory));
            self::assertNull(\error_get_last());
            self::assertSame(\PREG_NO_ERROR, \preg_last_error());
        } finally {
            \exec('rm -rf ' . \escapeshellarg($directory));
        }
    }
}
