<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Platform;

use Bobbin\Platform\MissingExtensionException;
use Bobbin\Platform\RequiredExtension;
use PHPUnit\Framework\TestCase;

/** composer.json only suggests extensions; the part that needs one says so when it starts. */
final class RequiredExtensionTest extends TestCase
{
    public function testAMissingExtensionIsNamedWithTheDebianPackageThatBringsIt(): void
    {
        try {
            RequiredExtension::check('pgsql_not_here', 'The PostgreSQL client');
            self::fail('no exception');
        } catch (MissingExtensionException $error) {
            self::assertSame('pgsql_not_here', $error->extension);
            self::assertStringStartsWith('The PostgreSQL client needs the PHP extension "pgsql_not_here"', $error->getMessage());
            self::assertStringContainsString('apt-get install ' . self::php() . '-pgsql_not_here', $error->getMessage());
        }
    }

    public function testALoadedExtensionPasses(): void
    {
        RequiredExtension::checkAll(['json', 'pcre'], 'anything');
        $this->addToAssertionCount(1);
    }

    public function testTheDebianPackagesAreTheOnesDebianShipsEachExtensionIn(): void
    {
        self::assertSame(self::php() . '-pgsql', RequiredExtension::debianPackage('pgsql'));
        self::assertSame(self::php() . '-cli', RequiredExtension::debianPackage('pcntl'));
        self::assertSame(self::php() . '-common', RequiredExtension::debianPackage('posix'));
        self::assertSame(self::php() . '-common', RequiredExtension::debianPackage('sockets'));
        self::assertSame(self::php() . '-common', RequiredExtension::debianPackage('FFI'));
        self::assertSame(self::php() . '-mysql', RequiredExtension::debianPackage('mysqli'));
    }

    public function testServeWithoutPosixRefusesToStartNamingTheExtensionAndPackage(): void
    {
        // -n: no php.ini, so none of the shared extensions Debian loads from conf.d (posix, sockets).
        $root = \dirname(__DIR__, 3);
        $process = \proc_open(
            [\PHP_BINARY, '-n', $root . '/bin/bobbin', 'serve', $root . '/examples/hello.php', '--listen=127.0.0.1:0'],
            [1 => ['pipe', 'w'], 2 => ['pipe', 'w']],
            $pipes,
        );
        self::assertIsResource($process);
        $stdout = (string) \stream_get_contents($pipes[1]);
        $stderr = (string) \stream_get_contents($pipes[2]);
        $status = \proc_close($process);

        if (\str_contains($stderr, 'needs the PHP extension "pcntl"')) {
            self::assertStringContainsString(self::php() . '-cli', $stderr); // a PHP built without pcntl
        } else {
            self::assertStringContainsString('bin/bobbin serve needs the PHP extension "posix"', $stderr, $stdout);
            self::assertStringContainsString('apt-get install ' . self::php() . '-common', $stderr);
        }
        self::assertSame(1, $status);
        self::assertStringNotContainsString(' in /', $stderr, 'one clear line, no file and line');
    }

    private static function php(): string
    {
        return 'php' . \PHP_MAJOR_VERSION . '.' . \PHP_MINOR_VERSION;
    }
}
