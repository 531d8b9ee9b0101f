<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http;

use Bobbin\Http\InvalidConfigException;
use Bobbin\Http\ListenAddress;
use Bobbin\Http\ServerConfig;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class ServerConfigTest extends TestCase
{
    public function testOptionsGivenAsStringsAreConvertedToTheirTypes(): void
    {
        $config = ServerConfig::fromArray([
            'listen' => '0.0.0.0:9000',
            'max-body-bytes' => '2048',
            'header-timeout' => '2.5',
            'access-log' => 'on',
            'max-requests-per-connection' => 0,
        ]);

        self::assertSame('0.0.0.0:9000', $config->listen);
        self::assertSame(2048, $config->maxBodyBytes);
        self::assertSame(2.5, $config->headerTimeout);
        self::assertTrue($config->accessLog);
        self::assertSame(0, $config->maxRequestsPerConnection);
        self::assertSame(1024, $config->backlog);
    }

    public function testByteSizesAcceptUnitsAsEveryOtherSizeOfBobbinDoes(): void
    {
        $config = ServerConfig::fromArray(['max-body-bytes' => '32M', 'max-header-bytes' => '16K', 'max-request-line-bytes' => '8k']);

        self::assertSame(32 * 1024 * 1024, $config->maxBodyBytes);
        self::assertSame(16 * 1024, $config->maxHeaderBytes);
        self::assertSame(8 * 1024, $config->maxRequestLineBytes);
        self::assertSame(1024, ServerConfig::fromArray(['max-body-bytes' => 1024])->maxBodyBytes);
    }

    public function testAByteSizeThatIsNoneIsRefusedNamingTheOption(): void
    {
        $this->expectException(InvalidConfigException::class);
        $this->expectExceptionMessage('--max-body-bytes expects a byte count (e.g. 1048576, 512K, 32M, 1G), got \'lots\'');
        ServerConfig::fromArray(['max-body-bytes' => 'lots']);
    }

    public function testEveryOptionHasADefaultMatchingTheConstructor(): void
    {
        $defaults = new ServerConfig();
        foreach (ServerConfig::OPTIONS as [$property, $type, $default]) {
            // A repeatable option's default is shown as '' (none) and is the empty list.
            self::assertSame($type === 'list' && $default === '' ? [] : $default, $defaults->{$property}, $property);
        }
    }

    /** @return iterable<string, array{array<string, mixed>}> */
    public static function invalidOptions(): iterable
    {
        yield 'unknown option' => [['colour' => 'blue']];
        yield 'non-numeric size' => [['max-body-bytes' => 'lots']];
        yield 'negative size' => [['max-body-bytes' => '-1']];
        yield 'negative connections' => [['max-connections' => '-1']];
        yield 'a negative minimum data rate' => [['min-data-rate' => '-5']];
        yield 'a zero data-rate window' => [['data-rate-window' => '0']];
        yield 'zero timeout' => [['idle-timeout' => '0']];
        yield 'non-boolean flag' => [['access-log' => 'maybe']];
        yield 'listen without a port' => [['listen' => 'localhost']];
        yield 'listen with a port too large' => [['listen' => '127.0.0.1:70000']];
        yield 'empty unix path' => [['listen' => 'unix:']];
        yield 'request line larger than the head' => [['max-request-line-bytes' => '9000', 'max-header-bytes' => '8000']];
        yield 'multi-line server header' => [['server-header' => "a\r\nX-Evil: 1"]];
    }

    /** @param array<string, mixed> $options */
    #[DataProvider('invalidOptions')]
    public function testInvalidOptionsAreRefusedWithAMessageNamingTheOption(array $options): void
    {
        $this->expectException(InvalidConfigException::class);
        $this->expectExceptionMessageMatches('/--[a-z-]+/');

        ServerConfig::fromArray($options);
    }

    public function testListenAddressesOfEveryKindAreParsed(): void
    {
        self::assertSame('tcp://127.0.0.1:8080', ListenAddress::parse('127.0.0.1:8080')->toStreamAddress());
        self::assertSame('tcp://[::1]:80', ListenAddress::parse('[::1]:80')->toStreamAddress());
        self::assertSame('unix:///tmp/b.sock', ListenAddress::parse('unix:/tmp/b.sock')->toStreamAddress());
        self::assertTrue(ListenAddress::parse('unix:/tmp/b.sock')->isUnix());
    }

    public function testTheSweeperLooksOftenEnoughForTheShortestTimeout(): void
    {
        self::assertSame(1.0, (new ServerConfig())->sweepInterval());
        self::assertSame(0.125, (new ServerConfig(headerTimeout: 0.5))->sweepInterval());
    }

    public function testStaticMountsComeAsARepeatedOptionOrCommaSeparated(): void
    {
        $directory = \sys_get_temp_dir();

        self::assertSame(['/a=' . $directory, $directory], ServerConfig::fromArray(['static' => ['/a=' . $directory, $directory]])->static);
        self::assertSame(['/a=' . $directory, $directory], ServerConfig::fromArray(['static' => '/a=' . $directory . ', ' . $directory])->static);
    }

    public function testAStaticDirectoryThatIsNoneIsRefusedNamingIt(): void
    {
        $this->expectException(InvalidConfigException::class);
        $this->expectExceptionMessage('--static: /nowhere/at/all is not a directory');
        ServerConfig::fromArray(['static' => '/assets=/nowhere/at/all']);
    }

    public function testACompressionLevelOutsideZlibsIsRefused(): void
    {
        $this->expectException(InvalidConfigException::class);
        $this->expectExceptionMessage('--compression-level must be 1 to 9, got 10');
        ServerConfig::fromArray(['compression-level' => '10']);
    }
}
