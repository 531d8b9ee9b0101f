<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Postgres;

use Bobbin\Postgres\Bytea;
use Bobbin\Postgres\ConnectionConfig;

final class TypeConversionTest extends PostgresTestCase
{
    public function testIntegerColumnsBecomeInts(): void
    {
        $row = $this->connect()->queryOne('SELECT 7::int2 AS a, -8::int4 AS b, 9223372036854775807::int8 AS c, 42::oid AS d');

        self::assertSame(['a' => 7, 'b' => -8, 'c' => \PHP_INT_MAX, 'd' => 42], $row);
    }

    public function testFloatColumnsBecomeFloatsIncludingSpecialValues(): void
    {
        $row = $this->connect()->queryOne(
            "SELECT 1.5::float4 AS a, 0.1::float8 AS b, 'NaN'::float8 AS c, 'Infinity'::float8 AS d, '-Infinity'::float4 AS e",
        );

        self::assertSame(1.5, $row['a'] ?? null);
        self::assertSame(0.1, $row['b'] ?? null);
        self::assertIsFloat($row['c'] ?? null);
        self::assertNan($row['c']);
        self::assertSame(\INF, $row['d'] ?? null);
        self::assertSame(-\INF, $row['e'] ?? null);
    }

    public function testNumericStaysAStringToKeepItsPrecision(): void
    {
        self::assertSame('12345678901234567890.123456789', $this->connect()->queryValue('SELECT 12345678901234567890.123456789::numeric'));
    }

    public function testBooleansAndNullsBecomePhpValues(): void
    {
        $row = $this->connect()->queryOne('SELECT true AS t, false AS f, NULL::bool AS n, NULL::int4 AS i, NULL::text AS s');

        self::assertSame(['t' => true, 'f' => false, 'n' => null, 'i' => null, 's' => null], $row);
    }

    public function testOtherTypesComeBackAsTheirTextForm(): void
    {
        $row = $this->connect()->queryOne(
            "SELECT 'héllo'::text AS t, '2024-02-29'::date AS d, '{1,2}'::int4[] AS a, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS u",
        );

        self::assertSame(['t' => 'héllo', 'd' => '2024-02-29', 'a' => '{1,2}', 'u' => 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'], $row);
    }

    public function testJsonIsAStringUnlessDecodingIsRequested(): void
    {
        $sql = "SELECT '{\"a\": [1, 2]}'::jsonb AS b, '[true]'::json AS j";

        self::assertSame(['b' => '{"a": [1, 2]}', 'j' => '[true]'], $this->connect()->queryOne($sql));
        $decoding = $this->connect(new ConnectionConfig(self::dsn(), decodeJson: true));
        self::assertSame(['b' => ['a' => [1, 2]], 'j' => [true]], $decoding->queryOne($sql));
    }

    public function testParametersOfEveryPhpTypeAreSentInTheirPostgresForm(): void
    {
        $row = $this->connect()->queryOne(
            'SELECT $1::int8 AS i, $2::float8 AS f, $3::bool AS t, $4::bool AS ff, $5::text AS n, $6::jsonb AS j, $7::text AS s, $8::float8 AS inf, $9::timestamptz = \'2024-01-02 03:04:05+00\' AS ts',
            [42, 2.5, true, false, null, ['k' => 'v'], 'plain', \INF, new \DateTimeImmutable('2024-01-02 03:04:05', new \DateTimeZone('UTC'))],
        );

        self::assertSame(['i' => 42, 'f' => 2.5, 't' => true, 'ff' => false, 'n' => null, 'j' => '{"k": "v"}', 's' => 'plain', 'inf' => \INF, 'ts' => true], $row);
    }

    public function testByteaRoundTripsEveryByteValue(): void
    {
        $bytes = '';
        for ($i = 0; $i < 256; $i++) {
            $bytes .= \chr($i);
        }

        self::assertSame($bytes, $this->connect()->queryValue('SELECT $1::bytea', [new Bytea($bytes)]));
    }

    public function testATenMegabyteByteaRoundTripsThroughATable(): void
    {
        $table = $this->createTable('id int PRIMARY KEY, data bytea NOT NULL');
        $connection = $this->connect();
        $bytes = \random_bytes(10 * 1024 * 1024);

        self::assertSame(1, $connection->execute("INSERT INTO $table VALUES (1, \$1)", [new Bytea($bytes)]));
        $back = $connection->queryValue("SELECT data FROM $table WHERE id = 1");

        self::assertIsString($back);
        self::assertSame(\strlen($bytes), \strlen($back));
        self::assertTrue($bytes === $back, 'The bytes read back differ from those written');
    }

    public function testAffectedRowsAndEmptyResults(): void
    {
        $table = $this->createTable('id int PRIMARY KEY');
        $connection = $this->connect();

        self::assertSame(3, $connection->execute("INSERT INTO $table SELECT generate_series(1, 3)"));
        self::assertSame(2, $connection->execute("DELETE FROM $table WHERE id > \$1", [1]));
        self::assertNull($connection->queryOne("SELECT * FROM $table WHERE id = \$1", [99]));
        self::assertNull($connection->queryValue("SELECT id FROM $table WHERE id = \$1", [99]));
        self::assertSame([], $connection->queryAll("SELECT * FROM $table WHERE id = \$1", [99]));
        self::assertSame([['id' => 1]], $connection->queryAll("SELECT * FROM $table"));
        self::assertSame('DELETE 0', $connection->query("DELETE FROM $table WHERE id = 99")->command);
    }

    public function testAParameterThatCannotBeSentIsRejectedBeforeAnythingIsSent(): void
    {
        $connection = $this->connect();
        try {
            $connection->query('SELECT $1::text', [new \stdClass()]);
            self::fail('An object parameter must be rejected');
        } catch (\InvalidArgumentException $e) {
            self::assertStringContainsString('stdClass', $e->getMessage());
        }
        self::assertSame(1, $connection->queryValue('SELECT 1'));
    }
}
