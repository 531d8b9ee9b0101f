<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Jobs;

use Bobbin\Process\JobPoolConfig;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** The job workers' options as the serve command hands them over. */
final class JobPoolConfigTest extends TestCase
{
    public function testWithoutASocketPathOneIsMadeInAPrivateDirectoryOfItsOwn(): void
    {
        $first = JobPoolConfig::create(2);
        $second = JobPoolConfig::create(2);

        self::assertTrue($first->ownsDirectory);
        self::assertMatchesRegularExpression('~/bobbin-jobs-[0-9a-f]{12}/jobs\.sock$~', $first->socketPath);
        self::assertNotSame(\dirname($first->socketPath), \dirname($second->socketPath));
        self::assertDirectoryDoesNotExist(\dirname($first->socketPath), 'Made before the master binds it');
    }

    public function testAGivenSocketPathIsUsedAsItIs(): void
    {
        $config = JobPoolConfig::create(1, socketPath: '/run/app/jobs.sock');

        self::assertSame('/run/app/jobs.sock', $config->socketPath);
        self::assertFalse($config->ownsDirectory);
    }

    public function testTheBootstrapIsResolvedToItsRealPath(): void
    {
        $config = JobPoolConfig::create(1, __DIR__ . '/../Jobs/../Jobs/JobPoolConfigTest.php');

        self::assertSame(__FILE__, $config->bootstrap);
    }

    /** @return iterable<string, array{\Closure(): JobPoolConfig, string}> */
    public static function refused(): iterable
    {
        yield 'no workers' => [static fn () => JobPoolConfig::create(0), '--job-workers must be at least 1'];
        yield 'a missing bootstrap' => [static fn () => JobPoolConfig::create(1, '/nonexistent/boot.php'), '--job-bootstrap /nonexistent/boot.php does not exist or is not readable'];
        yield 'niceness out of range' => [static fn () => JobPoolConfig::create(1, nice: 20), '--job-nice must lie between 0 and 19'];
        yield 'a socket path too long' => [static fn () => JobPoolConfig::create(1, socketPath: '/' . \str_repeat('x', 107)), 'is longer than a unix socket path may be'];
    }

    /** @param \Closure(): JobPoolConfig $make */
    #[DataProvider('refused')]
    public function testOptionsThatCannotWorkAreRefusedWithTheOptionsName(\Closure $make, string $message): void
    {
        $this->expectException(\InvalidArgumentException::class);
        $this->expectExceptionMessage($message);
        $make();
    }
}
