<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\Legacy;

use Bobbin\Http\Legacy\DocumentRoot;
use Bobbin\Http\Legacy\RouteOutcome;
use Bobbin\Http\Legacy\ScriptRoute;
use PHPUnit\Framework\TestCase;

final class DocumentRootTest extends TestCase
{
    private string $base;
    private string $root;

    protected function setUp(): void
    {
        $this->base = \sys_get_temp_dir() . '/bobbin-docroot-' . \bin2hex(\random_bytes(4));
        $this->root = $this->base . '/site';
        foreach (['', '/wp-admin', '/wp-admin/includes', '/empty', '/assets', '/with space'] as $dir) {
            \mkdir($this->root . $dir, 0o777, true);
        }
        \mkdir($this->base . '/outside');
        $files = ['/index.php', '/wp-login.php', '/wp-admin/index.php', '/wp-admin/post.php', '/assets/style.css', '/notes.txt', '/with space/a b.php', '/Upper.PHP'];
        foreach ($files as $file) {
            \file_put_contents($this->root . $file, '<?php');
        }
        \file_put_contents($this->base . '/outside/secret.php', '<?php');
        \file_put_contents($this->base . '/outside/index.php', '<?php');
        \symlink($this->base . '/outside/secret.php', $this->root . '/linked-out.php');
        \symlink($this->base . '/outside', $this->root . '/linked-dir');
        \symlink($this->root . '/wp-login.php', $this->root . '/linked-in.php');
        \symlink($this->root . '/notes.txt', $this->root . '/disguised.php');
    }

    protected function tearDown(): void
    {
        \exec('rm -rf ' . \escapeshellarg($this->base));
    }

    private function route(string $path): ScriptRoute
    {
        return (new DocumentRoot($this->root))->route($path);
    }

    private function assertRunsScript(string $scriptName, string $path): void
    {
        $route = $this->route($path);
        self::assertSame(RouteOutcome::Script, $route->outcome, "$path: {$route->reason}");
        self::assertSame($scriptName, $route->scriptName, $path);
        self::assertSame(\realpath($this->root) . $scriptName, $route->scriptFilename, $path);
    }

    private function assertRefused(RouteOutcome $outcome, string $path): void
    {
        self::assertSame($outcome, $this->route($path)->outcome, $path);
    }

    public function testAPathNamingAPhpFileRunsThatFile(): void
    {
        $this->assertRunsScript('/wp-login.php', '/wp-login.php');
        $this->assertRunsScript('/wp-admin/post.php', '/wp-admin/post.php');
        $this->assertRunsScript('/with space/a b.php', '/with%20space/a%20b.php');
    }

    public function testADirectoryRunsItsIndexPhp(): void
    {
        $this->assertRunsScript('/index.php', '/');
        $this->assertRunsScript('/wp-admin/index.php', '/wp-admin/');
    }

    public function testADirectoryNamedWithoutItsSlashIsRedirectedToThePathWithIt(): void
    {
        $route = $this->route('/wp-admin');

        self::assertSame(RouteOutcome::AddSlash, $route->outcome);
        self::assertSame('/wp-admin/', $route->scriptName);
    }

    public function testADirectoryWithoutIndexPhpIsForbiddenAsNginxAnswers(): void
    {
        $this->assertRefused(RouteOutcome::Forbidden, '/empty/');
    }

    public function testAnythingElseGoesToTheFrontControllerForPrettyPermalinks(): void
    {
        $this->assertRunsScript('/index.php', '/2026/11/hello-world/');
        $this->assertRunsScript('/index.php', '/no-such-page');
        $this->assertRunsScript('/index.php', '/index.php/path/info');
        $this->assertRunsScript('/index.php', '/wp-admin/missing-dir/');
    }

    public function testAPhpPathWithNoFileIsNotFoundAndNotSentToTheFrontController(): void
    {
        $this->assertRefused(RouteOutcome::NotFound, '/missing.php');
        $this->assertRefused(RouteOutcome::NotFound, '/wp-admin/includes.php');
    }

    public function testFilesThatAreNotPhpAreNeverRunAndStaticFilesAreNotFound(): void
    {
        $this->assertRefused(RouteOutcome::NotFound, '/assets/style.css');
        $this->assertRefused(RouteOutcome::NotFound, '/notes.txt');
        $this->assertRefused(RouteOutcome::NotFound, '/Upper.PHP');
        // A symlink named .php whose real file is not .php is not run either.
        $this->assertRefused(RouteOutcome::NotFound, '/disguised.php');
        self::assertSame(DocumentRoot::STATIC_FILE_REASON, $this->route('/assets/style.css')->reason);
    }

    public function testDotDotSegmentsResolveInsideTheRootAndAreRefusedAboveIt(): void
    {
        $this->assertRunsScript('/wp-login.php', '/wp-admin/../wp-login.php');
        $this->assertRunsScript('/wp-login.php', '/wp-admin/%2e%2e/wp-login.php');
        $this->assertRunsScript('/wp-login.php', '//./wp-login.php');
        $this->assertRefused(RouteOutcome::BadRequest, '/../outside/secret.php');
        $this->assertRefused(RouteOutcome::BadRequest, '/%2e%2e/outside/secret.php');
        $this->assertRefused(RouteOutcome::BadRequest, '/wp-admin/../../outside/index.php');
        $this->assertRefused(RouteOutcome::BadRequest, '/..');
    }

    public function testANulByteOrARelativePathIsABadRequest(): void
    {
        $this->assertRefused(RouteOutcome::BadRequest, '/wp-login.php%00.txt');
        $this->assertRefused(RouteOutcome::BadRequest, 'wp-login.php');
        $this->assertRefused(RouteOutcome::BadRequest, '');
    }

    public function testSymlinksLeadingOutOfTheRootAreNotFollowed(): void
    {
        $this->assertRefused(RouteOutcome::NotFound, '/linked-out.php');
        $this->assertRefused(RouteOutcome::NotFound, '/linked-dir/secret.php');
        $this->assertRefused(RouteOutcome::NotFound, '/linked-dir/');
        $this->assertRefused(RouteOutcome::NotFound, '/linked-dir');
        $this->assertRunsScript('/linked-in.php', '/linked-in.php');
    }

    public function testWithoutIndexPhpTheRootSendsUnknownPathsToA404(): void
    {
        \unlink($this->root . '/index.php');

        $this->assertRefused(RouteOutcome::NotFound, '/anything');
        $this->assertRefused(RouteOutcome::Forbidden, '/');
    }

    public function testTheScriptKeysOfServerAreThoseNginxAndPhpFpmSet(): void
    {
        $root = \realpath($this->root);

        self::assertSame([
            'SCRIPT_FILENAME' => $root . '/wp-admin/index.php',
            'SCRIPT_NAME' => '/wp-admin/index.php',
            'PHP_SELF' => '/wp-admin/index.php',
            'DOCUMENT_URI' => '/wp-admin/index.php',
            'DOCUMENT_ROOT' => $root,
        ], $this->route('/wp-admin/')->serverParams());
    }

    public function testARootThatIsNotADirectoryIsRefusedAtStart(): void
    {
        $this->expectException(\InvalidArgumentException::class);

        new DocumentRoot($this->root . '/index.php');
    }
}
