<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Jobs;

use Bobbin\Jobs\Security\JobKeys;
use PHPUnit\Framework\TestCase;

/** The jobs keys: long enough, one or two, from a file only their owner reads, never printed. */
final class JobKeysTest extends TestCase
{
    private const KEY = 'k3y-that-is-long-enough-0123456789abcdef';
    private string $file = '';

    protected function setUp(): void
    {
        $this->file = (string) \tempnam(\sys_get_temp_dir(), 'bobbin-keys-test-');
    }

    protected function tearDown(): void
    {
        @\unlink($this->file);
    }

    public function testAKeyShorterThan32BytesIsRefused(): void
    {
        $this->expectExceptionMessage('A jobs key must be at least 32 bytes; the first one has 31');
        new JobKeys(\str_repeat('a', 31));
    }

    public function testAFileWithTwoKeysSignsWithTheFirstAndAcceptsBoth(): void
    {
        \chmod($this->file, 0600);
        \file_put_contents($this->file, self::KEY . "\n" . \strrev(self::KEY) . "\n");

        $keys = JobKeys::fromFile($this->file);

        self::assertSame(JobKeys::idOf(self::KEY), $keys->signing()[0]);
        self::assertNotNull($keys->byId(JobKeys::idOf(\strrev(self::KEY))));
    }

    public function testThreeKeysAreRefused(): void
    {
        $this->expectExceptionMessage('must hold one jobs key, or two during a rotation');
        JobKeys::fromText(self::KEY . ' ' . self::KEY . ' ' . self::KEY, 'BOBBIN_JOBS_KEY');
    }

    public function testAKeyFileOthersCanReadIsRefused(): void
    {
        \chmod($this->file, 0644);
        \file_put_contents($this->file, self::KEY);

        $this->expectExceptionMessage('can be read by others (mode 0644): chmod 600 it');
        JobKeys::fromFile($this->file);
    }

    public function testTheFileComesBeforeTheEnvironmentAndNeitherMeansNone(): void
    {
        \chmod($this->file, 0600);
        \file_put_contents($this->file, self::KEY);

        self::assertSame(JobKeys::idOf(self::KEY), JobKeys::configured($this->file, \strrev(self::KEY))?->signing()[0]);
        self::assertSame(JobKeys::idOf(\strrev(self::KEY)), JobKeys::configured('', \strrev(self::KEY))?->signing()[0]);
        self::assertNull(JobKeys::configured('', ''));
    }

    public function testTheKeysAreNeitherDumpedNorSerialized(): void
    {
        $keys = new JobKeys(self::KEY);

        self::assertStringNotContainsString(self::KEY, \print_r($keys, true));
        \ob_start();
        \var_dump($keys);
        $dump = (string) \ob_get_clean();
        self::assertStringNotContainsString('pad', $dump);
        self::assertStringContainsString(\bin2hex(JobKeys::idOf(self::KEY)), $dump);
        $this->expectException(\LogicException::class);
        \serialize($keys);
    }
}
