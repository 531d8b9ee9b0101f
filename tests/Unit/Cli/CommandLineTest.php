<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Cli;

use Bobbin\Cli\CommandLine;
use Bobbin\Cli\UsageException;
use PHPUnit\Framework\TestCase;

final class CommandLineTest extends TestCase
{
    private function serve(): CommandLine
    {
        return new CommandLine('serve', ['workers' => 'int', 'watch' => 'bool', 'listen' => 'string', 'static' => 'string', 'opcache' => 'bool'], 'APP_FILE', ['--no-opcache' => ['opcache', '0']]);
    }

    public function testValuesComeAfterAnEqualsSignOrAsTheNextArgument(): void
    {
        $parsed = $this->serve()->parse(['app.php', '--workers=4', '--listen', '0.0.0.0:80']);

        self::assertSame('app.php', $parsed->positional);
        self::assertSame(['workers' => '4', 'listen' => '0.0.0.0:80'], $parsed->options);
        self::assertFalse($parsed->help);
    }

    public function testABoolOptionAloneIsTrueAndTakesNotTheNextArgument(): void
    {
        $parsed = $this->serve()->parse(['--watch', 'app.php']);

        self::assertSame(['watch' => '1'], $parsed->options);
        self::assertSame('app.php', $parsed->positional);
    }

    public function testAFlagSetsTheOptionItStandsFor(): void
    {
        self::assertSame(['opcache' => '0'], $this->serve()->parse(['--no-opcache'])->options);
    }

    public function testAnOptionGivenTwiceKeepsItsLastValueAndEveryValueInOrder(): void
    {
        $parsed = $this->serve()->parse(['--static=/a=public', '--static', '/b=assets']);

        self::assertSame('/b=assets', $parsed->options['static']);
        self::assertSame(['/a=public', '/b=assets'], $parsed->every['static']);
    }

    public function testAnEqualsSignInsideTheValueStaysInTheValue(): void
    {
        self::assertSame('a=b=c', $this->serve()->parse(['--listen=a=b=c'])->options['listen']);
    }

    public function testHelpWinsOverEverythingElse(): void
    {
        $parsed = $this->serve()->parse(['--workers=2', '-h', '--no-such-option']);

        self::assertTrue($parsed->help);
        self::assertSame([], $parsed->options);
    }

    public function testAnUnknownOptionIsNamedEvenWhenItIsLast(): void
    {
        $this->expectException(UsageException::class);
        $this->expectExceptionMessage('Unknown option --no-such-option (try bin/bobbin serve --help)');

        $this->serve()->parse(['app.php', '--no-such-option']);
    }

    public function testAValueMissingAtTheEndIsReported(): void
    {
        $this->expectException(UsageException::class);
        $this->expectExceptionMessage('Option --listen needs a value');

        $this->serve()->parse(['app.php', '--listen']);
    }

    public function testASecondPositionalArgumentIsRefused(): void
    {
        $this->expectException(UsageException::class);
        $this->expectExceptionMessage('Unexpected argument "other.php": serve takes one APP_FILE');

        $this->serve()->parse(['app.php', 'other.php']);
    }

    public function testACommandWithoutPositionalArgumentsRefusesOne(): void
    {
        $this->expectException(UsageException::class);
        $this->expectExceptionMessage('Unexpected argument "app.php" (try bin/bobbin jobs-worker --help)');

        (new CommandLine('jobs-worker', ['transport' => 'string']))->parse(['app.php']);
    }

    public function testASingleDashOptionIsUnknown(): void
    {
        $this->expectException(UsageException::class);
        $this->expectExceptionMessage('Unknown option -w');

        $this->serve()->parse(['-w']);
    }

    public function testHelpLinesGiveEachOptionItsDefaultAndItsEnvironmentVariable(): void
    {
        $lines = CommandLine::helpLines(['max-body-bytes' => ['10M', 'largest body'], 'listen' => ['', 'where']], true);

        self::assertSame([
            \sprintf('  --%-30s %s', 'max-body-bytes=VALUE', 'largest body'),
            \sprintf('  %-32s %s', '', 'default 10M, env BOBBIN_MAX_BODY_BYTES'),
            \sprintf('  --%-30s %s', 'listen=VALUE', 'where'),
            \sprintf('  %-32s %s', '', 'env BOBBIN_LISTEN'),
            \sprintf('  %-32s %s', '--help', 'this text'),
        ], $lines);
    }
}
