<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Aircraft;

use Bobbin\Bench\Faults\WriteLedger;
use PHPUnit\Framework\TestCase;

require_once \dirname(__DIR__, 3) . '/bench/faults/lib/WriteLedger.php';

/** bench/faults/pg-terminate's row-by-row check: what each answer promises about the database. */
final class FaultRunLedgerTest extends TestCase
{
    private WriteLedger $ledger;

    protected function setUp(): void
    {
        $this->ledger = new WriteLedger();
    }

    private function answer(string $method, string $number, int $status, string $title = '', string $body = ''): void
    {
        $this->ledger->record(['method' => $method, 'number' => $number, 'id' => 7, 'title' => $title, 'status' => $status, 'body' => $body]);
    }

    public function testAnswersKeptByTheDatabaseGiveNoMismatch(): void
    {
        $this->answer('POST', 'A', 201, 'first');
        $this->answer('GET', 'A', 200, body: '{"title":"first"}');
        $this->answer('PUT', 'A', 200, 'second');
        $this->answer('GET', 'A', 200, body: '{"title":"second"}');
        $this->answer('POST', 'B', 201, 'first');
        $this->answer('PUT', 'B', 503, 'second');
        $this->answer('DELETE', 'B', 204);
        $this->answer('POST', 'C', 503, 'first');
        $this->answer('POST', 'D', 201, 'first');
        $this->answer('DELETE', 'D', 503);

        self::assertSame([], $this->ledger->check(['A' => 'second', 'D' => 'first']));
        self::assertSame([], $this->ledger->unexpected());
        self::assertSame([2, 2], $this->ledger->expectations());
    }

    public function testEveryBrokenPromiseIsAMismatch(): void
    {
        $this->answer('POST', 'created', 201, 'first');
        $this->answer('POST', 'refused', 503, 'first');
        $this->answer('POST', 'deleted', 201, 'first');
        $this->answer('DELETE', 'deleted', 204);
        $this->answer('POST', 'kept', 201, 'first');
        $this->answer('DELETE', 'kept', 503);
        $this->answer('POST', 'updated', 201, 'first');
        $this->answer('PUT', 'updated', 200, 'second');
        $this->answer('POST', 'not updated', 201, 'first');
        $this->answer('PUT', 'not updated', 503, 'second');

        $mismatches = $this->ledger->check([
            'refused' => 'first',
            'deleted' => 'first',
            'updated' => 'first',
            'not updated' => 'second',
        ]);

        self::assertSame([
            'created: answered POST 201, but there is no row',
            'refused: answered POST 503, but the row exists',
            'deleted: answered DELETE 204, but the row exists',
            'kept: answered DELETE 503, but there is no row',
            'updated: answered PUT 200, but the title is "first", not "second"',
            'not updated: answered PUT 503, but the title is "second", not "first"',
        ], $mismatches);
    }

    public function testAReadThatContradictsAnEarlierAnswerIsAMismatch(): void
    {
        $this->answer('POST', 'A', 201, 'first');
        $this->answer('PUT', 'A', 200, 'second');
        $this->answer('GET', 'A', 200, body: '{"title":"first"}');
        $this->answer('POST', 'B', 201, 'first');
        $this->answer('GET', 'B', 404, body: '{"error":"No such aircraft"}');

        self::assertSame([
            'GET A (id 7) showed the title "first", not "second" (PUT 200)',
            'GET B (id 7) answered 404: the row POST 201 promised is not there',
        ], $this->ledger->check(['A' => 'second', 'B' => 'first']));
    }

    public function testOtherAnswersAndNoAnswerAreUnexpectedAndTheirRowsUnchecked(): void
    {
        $this->answer('POST', 'A', 500, 'first', '{"error":"Internal server error"}');
        $this->answer('POST', 'B', 0, 'first');

        self::assertSame([
            'POST A (id 7) answered 500: {"error":"Internal server error"}',
            'POST B (id 7) got no answer',
        ], $this->ledger->unexpected());
        self::assertSame([], $this->ledger->check(['A' => 'first']));
        self::assertSame([0, 0], $this->ledger->expectations());
        self::assertSame(['POST' => [500 => 1, 0 => 1]], $this->ledger->counts());
    }

    public function testAnAnswerThatSaysItsOutcomeIsUnknownIsHonestAndItsRowUnchecked(): void
    {
        $this->answer('POST', 'A', 504, 'first', '{"error":"…","outcome":"unknown"}');
        $this->answer('DELETE', 'B', 504, '', '{"error":"Gateway Timeout"}');

        self::assertSame(['POST A (id 7) answered 504, outcome unknown'], $this->ledger->unknown());
        self::assertSame(['DELETE B (id 7) answered 504: {"error":"Gateway Timeout"}'], $this->ledger->unexpected(), 'a 504 that does not say "unknown" is not one');
        self::assertSame([], $this->ledger->check(['A' => 'first']), 'whether the row is there or not');
        self::assertSame([], $this->ledger->check([]));
    }

    public function testAReadAfterAWriteOfUnknownOutcomeMayShowEitherValue(): void
    {
        $this->answer('POST', 'A', 201, 'first');
        $this->answer('PUT', 'A', 504, 'second', '{"outcome":"unknown"}');
        $this->answer('GET', 'A', 200, '', '{"title":"second"}');

        self::assertSame([], $this->ledger->check(['A' => 'second']));
        self::assertSame([], $this->ledger->check(['A' => 'first']));
    }

    public function testAnAnswerMarkedUnknownIsCountedListedAndLeavesItsRowUnchecked(): void
    {
        $this->ledger->record(['method' => 'POST', 'number' => 'A', 'id' => null, 'title' => 'first', 'status' => 503, 'body' => "503 Service Unavailable\n", 'unknown' => true]);
        $this->answer('POST', 'B', 201, 'first');
        $this->ledger->record(['method' => 'DELETE', 'number' => 'B', 'id' => 7, 'title' => '', 'status' => 503, 'body' => '', 'unknown' => true]);

        self::assertSame([], $this->ledger->check(['A' => 'first']));
        self::assertSame([], $this->ledger->unexpected());
        self::assertSame([0, 0], $this->ledger->expectations());
        self::assertSame([
            ['method' => 'POST', 'number' => 'A', 'title' => 'first', 'status' => 503],
            ['method' => 'DELETE', 'number' => 'B', 'title' => '', 'status' => 503],
        ], $this->ledger->unknownOutcomes());
        self::assertSame(['POST' => [503 => 1, 201 => 1], 'DELETE' => [503 => 1]], $this->ledger->counts());
    }

    public function testAReadAfterAWriteOfUnknownOutcomeMayShowEitherState(): void
    {
        $this->answer('POST', 'A', 201, 'first');
        $this->ledger->record(['method' => 'PUT', 'number' => 'A', 'id' => 7, 'title' => 'second', 'status' => 503, 'body' => "503 Service Unavailable\n", 'unknown' => true]);
        $this->answer('GET', 'A', 200, body: '{"title":"second"}');

        self::assertSame([], $this->ledger->check(['A' => 'second']));
    }
}
