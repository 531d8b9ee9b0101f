<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Aircraft;

use Bobbin\Tests\Support\EmbeddedPostgres;
use Bobbin\Tests\Support\HttpClient;
use Bobbin\Tests\Support\HttpResponse;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * Every row of shared/contracts/aircraft-api.md, over HTTP. Each subclass runs the same
 * assertions against one server variant, so both entry points are held to one contract.
 */
abstract class AircraftConformanceTestCase extends TestCase
{
    private static int $sequence = 0;

    abstract protected static function port(): int;

    /** The database behind the server under test goes away (and comes back in startDatabase()). */
    protected static function stopDatabase(): void
    {
        EmbeddedPostgres::stop();
    }

    protected static function startDatabase(): void
    {
        EmbeddedPostgres::start();
    }

    protected static function client(): HttpClient
    {
        return new HttpClient('127.0.0.1', static::port());
    }

    /** @return array<string, string> */
    protected static function aircraft(string $title = 'Sukhoi Superjet 100'): array
    {
        return [
            'number' => \sprintf('T-%s-%d', \bin2hex(\random_bytes(4)), ++self::$sequence),
            'title' => $title,
            'serial_number' => '95001',
            'assembly_date' => '2008-05-19',
            'added_at' => '2024-01-31',
        ];
    }

    /** @return array<string, mixed> the created record */
    private static function create(?array $data = null): array
    {
        $response = static::client()->json('POST', '/aircraft', $data ?? self::aircraft());
        self::assertSame(201, $response->status, $response->body);

        return $response->json();
    }

    private static function assertJsonError(HttpResponse $response, int $status): void
    {
        self::assertSame($status, $response->status, $response->body);
        self::assertStringStartsWith('application/json', (string) $response->header('Content-Type'));
        $body = $response->json();
        self::assertIsArray($body);
        self::assertIsString($body['error'] ?? null, 'an error body has a human-readable "error"');
        self::assertNotSame('', $body['error']);
    }

    public function testCreatingAnAircraftReturnsTheStoredRecordAndItsLocation(): void
    {
        $data = self::aircraft();
        $response = static::client()->json('POST', '/aircraft', $data);

        self::assertSame(201, $response->status, $response->body);
        self::assertStringStartsWith('application/json', (string) $response->header('Content-Type'));
        $record = $response->json();
        self::assertIsInt($record['id']);
        self::assertGreaterThan(0, $record['id']);
        self::assertSame(['id' => $record['id']] + $data, $record);
        self::assertSame('/aircraft/' . $record['id'], $response->header('Location'));
    }

    public function testAStoredAircraftCanBeReadBack(): void
    {
        $created = self::create();

        $response = static::client()->request('GET', '/aircraft/' . $created['id']);

        self::assertSame(200, $response->status);
        self::assertStringStartsWith('application/json', (string) $response->header('Content-Type'));
        self::assertSame($created, $response->json());
    }

    public function testRepeatedSlashesInThePathCountAsOne(): void
    {
        $created = self::create();

        $response = static::client()->request('GET', '//aircraft//' . $created['id']);

        self::assertSame(200, $response->status);
        self::assertSame($created, $response->json());
    }

    public function testReplacingAnAircraftStoresAllFiveFields(): void
    {
        $created = self::create();
        $replacement = self::aircraft('Airbus A320');
        $replacement['assembly_date'] = '2012-02-29';

        $response = static::client()->json('PUT', '/aircraft/' . $created['id'], $replacement);

        self::assertSame(200, $response->status, $response->body);
        self::assertSame(['id' => $created['id']] + $replacement, $response->json());
        self::assertSame(['id' => $created['id']] + $replacement, static::client()->request('GET', '/aircraft/' . $created['id'])->json());
    }

    public function testDeletingAnAircraftAnswers204AndTheIdIsGoneAfterwards(): void
    {
        $created = self::create();

        $response = static::client()->request('DELETE', '/aircraft/' . $created['id']);

        self::assertSame(204, $response->status);
        self::assertSame('', $response->body);
        self::assertJsonError(static::client()->request('GET', '/aircraft/' . $created['id']), 404);
        self::assertJsonError(static::client()->request('DELETE', '/aircraft/' . $created['id']), 404);
    }

    /** @return iterable<string, array{string}> */
    public static function idsThatAreNotPositiveIntegers(): iterable
    {
        yield 'zero' => ['0'];
        yield 'negative' => ['-1'];
        yield 'letters' => ['abc'];
        yield 'fraction' => ['1.5'];
        yield 'leading zero' => ['007'];
        yield 'beyond bigint' => ['99999999999999999999'];
        yield 'never used' => ['9223372036854775807'];
    }

    #[DataProvider('idsThatAreNotPositiveIntegers')]
    public function testAnIdThatIsNotStoredIsNotFoundForEveryMethod(string $id): void
    {
        self::assertJsonError(static::client()->request('GET', "/aircraft/$id"), 404);
        self::assertJsonError(static::client()->json('PUT', "/aircraft/$id", self::aircraft()), 404);
        self::assertJsonError(static::client()->request('DELETE', "/aircraft/$id"), 404);
    }

    /** @return iterable<string, array{string}> */
    public static function bodiesThatAreNotJsonObjects(): iterable
    {
        yield 'malformed' => ['{"number": "RA-1",'];
        yield 'an array' => ['[1, 2, 3]'];
        yield 'a string' => ['"aircraft"'];
        yield 'a number' => ['17'];
        yield 'null' => ['null'];
        yield 'empty' => [''];
        yield 'not json at all' => ['number=RA-1&title=x'];
    }

    #[DataProvider('bodiesThatAreNotJsonObjects')]
    public function testABodyThatIsNotAJsonObjectIsABadRequest(string $body): void
    {
        self::assertJsonError(static::client()->request('POST', '/aircraft', $body), 400);
        $created = self::create();
        self::assertJsonError(static::client()->request('PUT', '/aircraft/' . $created['id'], $body), 400);
    }

    public function testInvalidFieldsAreUnprocessableAndNamed(): void
    {
        $data = self::aircraft();
        unset($data['title']);
        $data['number'] = '';
        $data['serial_number'] = 95001;
        $data['assembly_date'] = '2023-02-29';

        $response = static::client()->json('POST', '/aircraft', $data);

        self::assertJsonError($response, 422);
        $fields = $response->json()['fields'];
        \ksort($fields);
        self::assertSame(['assembly_date', 'number', 'serial_number', 'title'], \array_keys($fields));
        foreach ($fields as $problem) {
            self::assertIsString($problem);
        }
    }

    public function testAHugeNumberIsNotMistakenForAString(): void
    {
        $body = \json_encode(['title' => 'x', 'serial_number' => '1', 'assembly_date' => '2008-05-19', 'added_at' => '2024-01-31']);
        $body = \substr((string) $body, 0, -1) . ',"number":123456789012345678901234567890}';

        $response = static::client()->request('POST', '/aircraft', $body);

        self::assertJsonError($response, 422);
        self::assertSame(['number'], \array_keys($response->json()['fields']));
    }

    public function testInvalidFieldsInAReplacementAreUnprocessable(): void
    {
        $created = self::create();
        $data = self::aircraft();
        $data['added_at'] = '2024-13-01';

        $response = static::client()->json('PUT', '/aircraft/' . $created['id'], $data);

        self::assertJsonError($response, 422);
        self::assertSame(['added_at'], \array_keys($response->json()['fields']));
    }

    public function testADuplicateNumberIsAConflictOnCreateAndOnReplace(): void
    {
        $first = self::create();
        $second = self::create();
        $duplicate = self::aircraft();
        $duplicate['number'] = $first['number'];

        self::assertJsonError(static::client()->json('POST', '/aircraft', $duplicate), 409);
        self::assertJsonError(static::client()->json('PUT', '/aircraft/' . $second['id'], $duplicate), 409);
        self::assertSame($second, static::client()->request('GET', '/aircraft/' . $second['id'])->json(), 'a conflict changes nothing');
    }

    public function testTheListPagesThroughAircraftInIdOrder(): void
    {
        $created = [self::create(), self::create(), self::create()];

        // Other writers may interleave rows; follow the cursor until our three were seen.
        $seen = [];
        $afterId = $created[0]['id'] - 1;
        $pages = 0;
        do {
            $response = static::client()->request('GET', "/aircraft?limit=2&after_id=$afterId");
            self::assertSame(200, $response->status, $response->body);
            $page = $response->json();
            self::assertLessThanOrEqual(2, \count($page['items']));
            foreach ($page['items'] as $item) {
                self::assertGreaterThan($afterId, $item['id'], 'ids ascend across pages');
                $afterId = $item['id'];
                $seen[$item['id']] = $item;
            }
            if ($page['next_after_id'] !== null) {
                self::assertCount(2, $page['items'], 'only a full page has a cursor');
                self::assertSame($afterId, $page['next_after_id']);
            }
        } while ($page['next_after_id'] !== null && !isset($seen[$created[2]['id']]) && ++$pages < 1000);

        foreach ($created as $record) {
            self::assertSame($record, $seen[$record['id']] ?? null);
        }
        $last = static::client()->request('GET', '/aircraft?limit=100&after_id=' . \PHP_INT_MAX)->json();
        self::assertSame(['items' => [], 'next_after_id' => null], $last, 'past the last id: an empty last page');
    }

    public function testTheListDefaultsToTwentyItemsAfterIdZero(): void
    {
        for ($i = 0; $i < 21; $i++) {
            self::create();
        }
        $page = static::client()->request('GET', '/aircraft')->json();

        self::assertCount(20, $page['items']);
        self::assertIsInt($page['next_after_id']);
        self::assertSame($page['items'][19]['id'], $page['next_after_id']);
    }

    /** @return iterable<string, array{string}> */
    public static function badListParameters(): iterable
    {
        yield 'limit zero' => ['limit=0'];
        yield 'limit over 100' => ['limit=101'];
        yield 'limit not a number' => ['limit=ten'];
        yield 'limit fraction' => ['limit=1.5'];
        yield 'negative after_id' => ['after_id=-1'];
        yield 'after_id not a number' => ['after_id=x'];
        yield 'empty limit' => ['limit='];
    }

    #[DataProvider('badListParameters')]
    public function testListParametersOutOfRangeAreUnprocessable(string $query): void
    {
        $response = static::client()->request('GET', "/aircraft?$query");

        self::assertJsonError($response, 422);
        self::assertArrayHasKey(\explode('=', $query)[0], $response->json()['fields']);
    }

    public function testHealthAnswersOkInPlainText(): void
    {
        $response = static::client()->request('GET', '/health');

        self::assertSame(200, $response->status);
        self::assertStringStartsWith('text/plain', (string) $response->header('Content-Type'));
        self::assertSame('ok', $response->body);
    }

    public function testSleepWaitsForTheDatabaseAndReportsAUuid(): void
    {
        $started = \microtime(true);
        $response = static::client()->request('GET', '/sleep');

        self::assertGreaterThanOrEqual(0.95, \microtime(true) - $started);
        self::assertSame(200, $response->status, $response->body);
        self::assertStringStartsWith('text/plain', (string) $response->header('Content-Type'));
        self::assertMatchesRegularExpression(
            '/^Hello from Sleep request handler! Affected rows: 1\. Generated uuid: [0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/',
            $response->body,
        );
    }

    public function testAnUnknownPathIsNotFound(): void
    {
        self::assertJsonError(static::client()->request('GET', '/airplanes'), 404);
        self::assertJsonError(static::client()->request('GET', '/aircraft/1/wings'), 404);
    }

    public function testAnotherMethodOnAKnownPathIsNotAllowedAndSaysWhatIs(): void
    {
        $response = static::client()->request('PATCH', '/aircraft/1', '{}');
        self::assertJsonError($response, 405);
        $allowed = \array_map('trim', \explode(',', (string) $response->header('Allow')));
        self::assertEqualsCanonicalizing(['GET', 'PUT', 'DELETE'], \array_diff($allowed, ['HEAD']));

        $response = static::client()->request('DELETE', '/aircraft');
        self::assertJsonError($response, 405);
        $allowed = \array_map('trim', \explode(',', (string) $response->header('Allow')));
        self::assertEqualsCanonicalizing(['GET', 'POST'], \array_diff($allowed, ['HEAD']));
    }

    public function testTheDatabaseGoingDownGivesServiceUnavailableAndServiceResumesWhenItReturns(): void
    {
        $created = self::create();
        static::stopDatabase();
        try {
            self::assertJsonError(static::client()->request('GET', '/aircraft/' . $created['id']), 503);
            self::assertJsonError(static::client()->json('POST', '/aircraft', self::aircraft()), 503);
            self::assertSame(200, static::client()->request('GET', '/health')->status, 'the server itself stays up');
        } finally {
            static::startDatabase();
        }
        $deadline = \microtime(true) + 10;
        do {
            $response = static::client()->request('GET', '/aircraft/' . $created['id']);
        } while ($response->status !== 200 && \microtime(true) < $deadline && \usleep(100_000) === null);

        self::assertSame(200, $response->status, $response->body);
        self::assertSame($created, $response->json());
    }
}
