<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Aircraft;

use Bobbin\Apps\Aircraft\Domain\Aircraft;
use Bobbin\Apps\Aircraft\Domain\AircraftRepository;
use Bobbin\Apps\Aircraft\Http\AircraftController;
use Bobbin\Apps\Aircraft\Http\JsonResponses;
use Bobbin\Async\OutcomeUnknown;
use Bobbin\Tests\Support\Aircraft\LosingAnswersStorage;
use Nyholm\Psr7\Factory\Psr17Factory;
use Nyholm\Psr7\ServerRequest;
use PHPUnit\Framework\TestCase;

/**
 * The controller's answer to a write whose outcome is unknown: what the lookup by key finds.
 * The storage is a table in memory whose writes take effect and then "lose" their answer (or
 * not), as a connection that breaks right after the commit (or before the statement) would.
 */
final class UnknownOutcomeTest extends TestCase
{
    private const INPUT = ['number' => 'RA-1', 'title' => 'Superjet', 'serial_number' => '95001', 'assembly_date' => '2008-05-19', 'added_at' => '2024-01-31'];

    public function testACreateThatCommittedBeforeItsAnswerWasLostIs201WithTheStoredRecord(): void
    {
        $storage = new LosingAnswersStorage(applies: true);

        $response = self::controller($storage)->create(self::request('POST', self::INPUT));

        self::assertSame(201, $response->getStatusCode());
        self::assertSame('RA-1', \json_decode((string) $response->getBody(), true)['number']);
    }

    public function testACreateNotFoundByItsKeyStaysUnknown(): void
    {
        $storage = new LosingAnswersStorage(applies: false);

        $this->expectException(OutcomeUnknown::class);
        self::controller($storage)->create(self::request('POST', self::INPUT));
    }

    public function testAReplaceIsDoneWhenTheRecordHoldsTheNewValuesAndUnknownOtherwise(): void
    {
        $storage = new LosingAnswersStorage(applies: true);
        $storage->rows[1] = new Aircraft(1, 'RA-1', 'Old', '95001', '2008-05-19', '2024-01-31');

        $response = self::controller($storage)->replace(self::request('PUT', self::INPUT), '1');

        self::assertSame(200, $response->getStatusCode());
        self::assertSame('Superjet', \json_decode((string) $response->getBody(), true)['title']);

        $storage = new LosingAnswersStorage(applies: false);
        $storage->rows[1] = new Aircraft(1, 'RA-1', 'Old', '95001', '2008-05-19', '2024-01-31');
        $this->expectException(OutcomeUnknown::class);
        self::controller($storage)->replace(self::request('PUT', self::INPUT), '1');
    }

    public function testADeleteIsDoneWhenTheRecordIsGone(): void
    {
        $storage = new LosingAnswersStorage(applies: true);
        $storage->rows[1] = new Aircraft(1, 'RA-1', 'Superjet', '95001', '2008-05-19', '2024-01-31');

        self::assertSame(204, self::controller($storage)->delete(self::request('DELETE'), '1')->getStatusCode());
    }

    private static function controller(AircraftRepository $storage): AircraftController
    {
        $factory = new Psr17Factory();

        return new AircraftController($storage, new JsonResponses($factory, $factory));
    }

    /** @param array<string, string>|null $body */
    private static function request(string $method, ?array $body = null): ServerRequest
    {
        return new ServerRequest($method, '/aircraft', ['Content-Type' => 'application/json'], $body === null ? null : \json_encode($body));
    }
}
