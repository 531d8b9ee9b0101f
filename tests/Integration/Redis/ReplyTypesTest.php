<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Redis;

use Bobbin\Redis\Client;
use Bobbin\Redis\ClientConfig;
use Bobbin\Redis\Connection;
use Bobbin\Redis\ConnectionConfig;
use Bobbin\Redis\Exception\CommandException;
use Bobbin\Redis\Exception\WrongTypeException;
use Bobbin\Redis\VerbatimString;
use Bobbin\Tests\Support\Redis\EmbeddedRedis;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** Every reply type the real server sends, over RESP3 and over RESP2. */
final class ReplyTypesTest extends TestCase
{
    /** @return iterable<string, array{int}> */
    public static function protocols(): iterable
    {
        yield 'RESP3' => [3];
        yield 'RESP2' => [2];
    }

    private static function connect(int $protocol): Connection
    {
        return Connection::connect(ConnectionConfig::fromUrl(EmbeddedRedis::url())->with(protocol: $protocol, database: 1));
    }

    #[DataProvider('protocols')]
    public function testTheProtocolIsTheOneAskedFor(int $protocol): void
    {
        $connection = self::connect($protocol);

        self::assertSame($protocol, $connection->protocol());
        self::assertGreaterThan(0, $connection->clientId());
        self::assertSame('bobbin', $connection->command('CLIENT', 'GETNAME'));
        self::assertSame(1, self::database($connection));
    }

    #[DataProvider('protocols')]
    public function testStringsIntegersAndNullsComeBackAsPhpValues(int $protocol): void
    {
        $connection = self::connect($protocol);
        $key = 'types:' . \bin2hex(\random_bytes(4));

        self::assertTrue($connection->set($key, "bin\0\r\nary\xff"));
        self::assertSame("bin\0\r\nary\xff", $connection->get($key));
        self::assertSame('PONG', $connection->command('PING'));
        self::assertSame(10, $connection->command('STRLEN', $key));
        self::assertNull($connection->get($key . ':missing'));
        self::assertSame([null, "bin\0\r\nary\xff"], $connection->mGet([$key . ':missing', $key]));
        self::assertSame(1, $connection->del($key));
    }

    #[DataProvider('protocols')]
    public function testArraysMapsAndSetsKeepTheirShape(int $protocol): void
    {
        $connection = self::connect($protocol);
        $key = 'types:' . \bin2hex(\random_bytes(4));
        $connection->hSet($key . ':h', ['name' => 'A320', 'seats' => 180]);
        $connection->sAdd($key . ':s', ['a', 'b']);
        $connection->rPush($key . ':l', ['x', 'y', 'z']);

        self::assertSame(['name' => 'A320', 'seats' => '180'], $connection->hGetAll($key . ':h'));
        $members = $connection->sMembers($key . ':s');
        \sort($members);
        self::assertSame(['a', 'b'], $members);
        self::assertSame(['x', 'y', 'z'], $connection->lRange($key . ':l'));
        $raw = $connection->command('HGETALL', $key . ':h');
        self::assertSame($protocol === 3 ? ['name' => 'A320', 'seats' => '180'] : ['name', 'A320', 'seats', '180'], $raw);
        $connection->del([$key . ':h', $key . ':s', $key . ':l']);
    }

    #[DataProvider('protocols')]
    public function testScoresAreFloatsInBothProtocols(int $protocol): void
    {
        $connection = self::connect($protocol);
        $key = 'types:' . \bin2hex(\random_bytes(4));
        $connection->zAdd($key, ['a' => 1.5, 'b' => -\INF, 'c' => 3]);

        self::assertSame(1.5, $connection->zScore($key, 'a'));
        self::assertSame(-\INF, $connection->zScore($key, 'b'));
        self::assertSame(['b' => -\INF, 'a' => 1.5, 'c' => 3.0], $connection->zRangeWithScores($key));
        self::assertSame($protocol === 3 ? 1.5 : '1.5', $connection->command('ZSCORE', $key, 'a'));
        $connection->del($key);
    }

    public function testResp3DoublesBooleansBigNumbersVerbatimStringsAndNulls(): void
    {
        $connection = self::connect(3);
        $lua = static fn (string $body): mixed => $connection->eval("redis.setresp(3); return $body");

        self::assertSame(3.25, $lua("{double=3.25}"));
        self::assertTrue($lua('true'));
        self::assertFalse($lua('false'));
        self::assertSame('1234567890123456789012345678901234567890', $lua("{big_number='1234567890123456789012345678901234567890'}"));
        $verbatim = $lua("{verbatim_string={format='txt', string='hello'}}");
        self::assertInstanceOf(VerbatimString::class, $verbatim);
        self::assertSame(['txt', 'hello'], [$verbatim->format, $verbatim->text]);
        self::assertNull($lua('nil'));
        self::assertSame(['k' => 1], $lua("{map={k=1}}"));
        self::assertSame(['m'], $lua("{set={m=true}}"));
    }

    public function testResp2HasNoBooleansAndSaysSoWithIntegers(): void
    {
        $connection = self::connect(2);

        self::assertSame(1, $connection->eval('return true'));
        self::assertNull($connection->eval('return false'));
    }

    #[DataProvider('protocols')]
    public function testErrorRepliesAreExceptionsWithTheirPrefix(int $protocol): void
    {
        $connection = self::connect($protocol);
        $key = 'types:' . \bin2hex(\random_bytes(4));
        $connection->rPush($key, ['x']);
        try {
            $connection->get($key);
            self::fail('no exception');
        } catch (WrongTypeException $e) {
            self::assertSame('WRONGTYPE', $e->prefix());
            self::assertStringContainsString('(GET ' . $key . ')', $e->getMessage());
        }
        try {
            $connection->eval("return redis.error_reply('MYCODE something went wrong')");
            self::fail('no exception');
        } catch (CommandException $e) {
            self::assertSame('MYCODE', $e->prefix());
        }
        self::assertSame('PONG', $connection->command('PING'), 'the connection goes on after an error');
        $connection->del($key);
    }

    /** Found by the differential test (issue 35): the parser's internal ErrorReply reached the caller. */
    #[DataProvider('protocols')]
    public function testAnErrorInsideAnArrayReplyIsACommandExceptionInItsPlace(int $protocol): void
    {
        $connection = self::connect($protocol);
        $client = new Client(new ClientConfig(ConnectionConfig::fromUrl(EmbeddedRedis::url())->with(protocol: $protocol)));
        $lua = "return {'first', {7, redis.error_reply('INNER went wrong')}, redis.error_reply('OUTER x')}";

        foreach ([$connection->eval($lua), $client->eval($lua), $client->pipeline([['EVAL', $lua, 0]])[0]] as $reply) {
            self::assertIsArray($reply);
            self::assertSame('first', $reply[0]);
            self::assertSame(7, $reply[1][0]);
            self::assertInstanceOf(CommandException::class, $reply[1][1]);
            self::assertSame('INNER', $reply[1][1]->prefix());
            self::assertStringStartsWith('INNER went wrong', $reply[1][1]->getMessage());
            self::assertInstanceOf(CommandException::class, $reply[2]);
            self::assertSame('OUTER', $reply[2]->prefix());
        }
        $client->close();
    }

    private static function database(Connection $connection): int
    {
        $info = (string) $connection->command('CLIENT', 'INFO');
        \preg_match('/ db=(\d+) /', $info, $m);

        return (int) ($m[1] ?? -1);
    }
}
