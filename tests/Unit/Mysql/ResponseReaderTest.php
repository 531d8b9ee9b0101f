<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Mysql;

use Bobbin\Mysql\Exception\ProtocolException;
use Bobbin\Mysql\Internal\ColumnDefinition;
use Bobbin\Mysql\Internal\PreparedStatement;
use Bobbin\Mysql\Internal\Protocol;
use Bobbin\Mysql\Internal\ResponseReader;
use Bobbin\Mysql\Internal\Wire;
use PHPUnit\Framework\TestCase;

/** The response state machine, fed packets as the server sends them. */
final class ResponseReaderTest extends TestCase
{
    public static function column(string $name, int $type, int $flags = 0, int $decimals = 0, int $charset = 45, string $extended = ''): string
    {
        $packet = '';
        foreach (['def', 'bobbin', 't', 't', $name, $name] as $field) {
            $packet .= Wire::lengthEncodedString($field);
        }
        if ($extended !== '') {
            $packet .= Wire::lengthEncodedString("\x00" . Wire::lengthEncodedString($extended));
        }

        return $packet . "\x0c" . \pack('vVCvC', $charset, 11, $type, $flags, $decimals) . "\0\0";
    }

    private static function ok(int $affected = 0, int $insertId = 0, int $status = 2, int $warnings = 0, string $header = "\x00"): string
    {
        return $header . Wire::lengthEncodedInt($affected) . Wire::lengthEncodedInt($insertId) . \pack('vv', $status, $warnings);
    }

    /** @param list<string> $packets */
    private static function feed(ResponseReader $reader, array $packets): void
    {
        $last = \array_pop($packets);
        foreach ($packets as $packet) {
            self::assertFalse($reader->accept($packet), 'not complete before its last packet');
        }
        self::assertTrue($reader->accept((string) $last), 'complete with its last packet');
    }

    public function testAnOkReportsAffectedRowsInsertIdWarningsAndStatus(): void
    {
        $reader = new ResponseReader(false, true, false, false);
        self::feed($reader, [self::ok(3, 77, Protocol::SERVER_STATUS_IN_TRANS | Protocol::SERVER_SESSION_STATE_CHANGED, 2)]);

        $result = $reader->results()[0];
        self::assertSame([3, 77, 2], [$result->affectedRows, $result->lastInsertId, $result->warnings]);
        $past = new ResponseReader(false, true, false, false);
        self::feed($past, ["\x00\x01\xfe" . \pack('P', \PHP_INT_MIN) . \pack('vv', 2, 0)]);
        self::assertSame('9223372036854775808', $past->results()[0]->lastInsertId, 'an id past PHP_INT_MAX, as its decimal string');
        self::assertTrue($reader->sessionStateChanged);
        self::assertSame(Protocol::SERVER_STATUS_IN_TRANS, $reader->status & Protocol::SERVER_STATUS_IN_TRANS);
    }

    public function testAnErrorCarriesCodeSqlStateAndMessage(): void
    {
        $reader = new ResponseReader(false, true, false, false);
        self::feed($reader, ["\xff" . \pack('v', 1062) . '#23000' . "Duplicate entry '1' for key 'PRIMARY'"]);

        self::assertSame(1062, $reader->error?->code);
        self::assertSame('23000', $reader->error->sqlState);
        self::assertSame("Duplicate entry '1' for key 'PRIMARY'", $reader->error->message);
    }

    public function testATextResultSetWithDeprecatedEofEndsWithAnOkPacketHeaded0xFe(): void
    {
        $reader = new ResponseReader(false, true, false, false);
        self::feed($reader, [
            "\x02",
            self::column('id', Protocol::TYPE_LONG),
            self::column('name', Protocol::TYPE_VAR_STRING),
            "\x0242\x03abc",
            "\x017\xfb",
            self::ok(0, 0, 2, 0, "\xfe"),
        ]);

        self::assertSame([['id' => 42, 'name' => 'abc'], ['id' => 7, 'name' => null]], $reader->results()[0]->rows);
    }

    public function testAResultSetWithEofPacketsAsOlderServersSendIt(): void
    {
        $reader = new ResponseReader(false, false, false, false);
        self::feed($reader, [
            "\x01",
            self::column('n', Protocol::TYPE_LONGLONG),
            "\xfe\x00\x00\x02\x00",
            "\x015",
            "\xfe\x00\x00\x02\x00",
        ]);

        self::assertSame([['n' => 5]], $reader->results()[0]->rows);
    }

    public function testMoreResultsAreReadToTheEndOfTheLastOne(): void
    {
        $reader = new ResponseReader(false, true, false, false);
        self::feed($reader, [
            "\x01", self::column('a', Protocol::TYPE_LONG), "\x011", self::ok(0, 0, 2 | Protocol::SERVER_MORE_RESULTS_EXISTS, 0, "\xfe"),
            "\x01", self::column('b', Protocol::TYPE_LONG), "\x012", self::ok(0, 0, 2 | Protocol::SERVER_MORE_RESULTS_EXISTS, 0, "\xfe"),
            self::ok(0, 0, 2),
        ]);

        self::assertCount(3, $reader->results());
        self::assertSame([['a' => 1]], $reader->results()[0]->rows);
        self::assertSame([['b' => 2]], $reader->results()[1]->rows);
    }

    public function testAnErrorInTheMiddleOfTheRowsEndsTheResponse(): void
    {
        $reader = new ResponseReader(false, true, false, false);
        self::feed($reader, ["\x01", self::column('a', Protocol::TYPE_LONG), "\x011", "\xff" . \pack('v', 1317) . '#70100Query execution was interrupted']);

        self::assertSame(1317, $reader->error?->code);
    }

    public function testALocalInfileRequestIsNotedAndTheResponseGoesOn(): void
    {
        $reader = new ResponseReader(false, true, false, false);
        self::assertFalse($reader->accept("\xfb/etc/passwd"));
        self::assertSame('/etc/passwd', $reader->localInfileRequest);
        self::assertTrue($reader->accept(self::ok()));
    }

    public function testAPrepareResponseGivesTheIdParameterCountAndColumns(): void
    {
        $reader = new ResponseReader(false, true, false, false, true);
        self::feed($reader, [
            "\x00" . \pack('VvvCv', 9, 1, 2, 0, 0),
            self::column('?', Protocol::TYPE_VAR_STRING),
            self::column('?', Protocol::TYPE_VAR_STRING),
            self::column('id', Protocol::TYPE_LONG),
        ]);

        self::assertSame(9, $reader->statementId);
        self::assertSame(2, $reader->parameterCount);
        self::assertSame('id', $reader->columns()[0]->name);
    }

    public function testAPrepareWithEofPacketsAfterParametersAndColumns(): void
    {
        $reader = new ResponseReader(false, false, false, false, true);
        self::feed($reader, [
            "\x00" . \pack('VvvCv', 3, 1, 1, 0, 0),
            self::column('?', Protocol::TYPE_VAR_STRING),
            "\xfe\x00\x00\x02\x00",
            self::column('x', Protocol::TYPE_LONG),
            "\xfe\x00\x00\x02\x00",
        ]);

        self::assertSame(3, $reader->statementId);
    }

    public function testAStatementWithoutParametersOrColumnsIsPreparedInOnePacket(): void
    {
        $reader = new ResponseReader(false, true, false, false, true);
        self::feed($reader, ["\x00" . \pack('VvvCv', 4, 0, 0, 0, 0)]);

        self::assertSame(4, $reader->statementId);
    }

    public function testDiscardedRowsAreNotKeptButTheResponseIsReadToItsEnd(): void
    {
        $reader = new ResponseReader(false, true, false, false);
        $reader->accept("\x01");
        $reader->accept(self::column('a', Protocol::TYPE_LONG));
        $reader->accept("\x011");
        $reader->discardRows = true;
        self::assertFalse($reader->accept("\x012"));
        self::assertTrue($reader->accept(self::ok(0, 0, 2, 0, "\xfe")));

        self::assertSame([['a' => 1]], $reader->results()[0]->rows);
    }

    public function testAPacketAfterTheEndIsAProtocolError(): void
    {
        $reader = new ResponseReader(false, true, false, false);
        $reader->accept(self::ok());

        $this->expectException(ProtocolException::class);
        $reader->accept(self::ok());
    }

    public function testMariaDbExtendedMetadataMarksJsonColumns(): void
    {
        $reader = new ResponseReader(false, true, true, true);
        self::feed($reader, ["\x01", self::column('doc', Protocol::TYPE_BLOB, extended: 'json'), "\x0b" . '{"a":[1,2]}', self::ok(0, 0, 2, 0, "\xfe")]);

        self::assertSame([['doc' => ['a' => [1, 2]]]], $reader->results()[0]->rows);
    }

    public function testColumnsTheServerLeavesOutAreTheOnesItDescribedBefore(): void
    {
        $statement = new PreparedStatement(1, 0, []);
        $first = new ResponseReader(true, true, false, false, false, true);
        $first->statement = $statement;
        self::feed($first, ["\x01\x01", self::column('n', Protocol::TYPE_LONG), "\x00\x00" . \pack('V', 7), self::ok(0, 0, 2, 0, "\xfe")]);
        self::assertSame(['n'], \array_map(static fn ($c) => $c->name, $statement->columns), 'the statement holds what the server sent');

        $again = new ResponseReader(true, true, false, false, false, true);
        $again->statement = $statement;
        self::feed($again, ["\x01\x00", "\x00\x00" . \pack('V', 8), self::ok(0, 0, 2, 0, "\xfe")]);

        self::assertSame([['n' => 8]], $again->results()[0]->rows);
    }

    public function testColumnsReadWhileAnAbandonedResponseIsDrainedBecomeTheStatementsColumns(): void
    {
        $statement = new PreparedStatement(1, 0, [ColumnDefinition::parse(self::column('n', Protocol::TYPE_VAR_STRING), false)]);
        $reader = new ResponseReader(true, true, false, false, false, true);
        $reader->statement = $statement;
        $reader->discardRows = true;
        self::feed($reader, ["\x01\x01", self::column('n', Protocol::TYPE_LONGLONG), "\x00\x00" . \pack('P', 7), self::ok(0, 0, 2, 0, "\xfe")]);

        self::assertSame(Protocol::TYPE_LONGLONG, $statement->columns[0]->type, 'the server leaves these out next time');
    }

    public function testLeftOutColumnsThatWereNeverReceivedAreAProtocolError(): void
    {
        $reader = new ResponseReader(true, true, false, false, false, true);

        $this->expectException(ProtocolException::class);
        $reader->accept("\x01\x00");
    }
}
