<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Aircraft;

use Bobbin\Apps\Aircraft\Domain\AircraftInput;
use Bobbin\Apps\Aircraft\Domain\ValidationException;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class AircraftInputValidationTest extends TestCase
{
    /** @return array<string, mixed> */
    private static function valid(): array
    {
        return [
            'number' => 'RA-89001',
            'title' => 'Sukhoi Superjet 100',
            'serial_number' => '95001',
            'assembly_date' => '2008-05-19',
            'added_at' => '2024-01-31',
        ];
    }

    public function testAValidObjectBecomesAnInput(): void
    {
        $input = AircraftInput::fromArray(self::valid());

        self::assertSame('RA-89001', $input->number);
        self::assertSame('Sukhoi Superjet 100', $input->title);
        self::assertSame('95001', $input->serialNumber);
        self::assertSame('2008-05-19', $input->assemblyDate);
        self::assertSame('2024-01-31', $input->addedAt);
    }

    /** @return iterable<string, array{string, mixed, string}> */
    public static function badFields(): iterable
    {
        yield 'missing number' => ['number', null, 'is required'];
        yield 'number not a string' => ['number', 42, 'must be a string'];
        yield 'empty title' => ['title', '', 'must not be empty'];
        yield 'blank title' => ['title', "   \t", 'must not be empty'];
        yield 'title too long' => ['title', \str_repeat('x', 201), 'must be at most 200 characters'];
        yield 'serial as array' => ['serial_number', ['1'], 'must be a string'];
        yield 'february 30th' => ['assembly_date', '2023-02-30', 'must be a real calendar day as YYYY-MM-DD'];
        yield 'no leap day in 2023' => ['added_at', '2023-02-29', 'must be a real calendar day as YYYY-MM-DD'];
        yield 'month 13' => ['added_at', '2024-13-01', 'must be a real calendar day as YYYY-MM-DD'];
        yield 'other format' => ['assembly_date', '19.05.2008', 'must be a real calendar day as YYYY-MM-DD'];
        yield 'with time' => ['assembly_date', '2008-05-19T00:00:00', 'must be a real calendar day as YYYY-MM-DD'];
        yield 'year zero' => ['assembly_date', '0000-01-01', 'must be a real calendar day as YYYY-MM-DD'];
        yield 'date as number' => ['added_at', 20240131, 'must be a string'];
        yield 'control character' => ['number', "RA\x01", 'must be printable UTF-8 text'];
        // What the one match per field (issue 41) must still tell apart, as the separate checks did.
        yield 'only NUL and blanks: empty, not unprintable' => ['title', " \x00\t", 'must not be empty'];
        yield 'blanks then a control character' => ['title', "  \x01", 'must be printable UTF-8 text'];
        yield 'a control character first' => ['title', "\x7FRA", 'must be printable UTF-8 text'];
        yield 'invalid UTF-8' => ['title', "RA\xC3", 'must be printable UTF-8 text'];
        yield 'invalid UTF-8 among blanks' => ['title', " \xFF ", 'must be printable UTF-8 text'];
        yield 'blank day' => ['assembly_date', ' ', 'must not be empty'];
        yield 'day with a control character' => ['assembly_date', "2008-05-19\x01", 'must be printable UTF-8 text'];
        yield 'day in invalid UTF-8' => ['added_at', "2008-05-1\xC3", 'must be printable UTF-8 text'];
    }

    #[DataProvider('badFields')]
    public function testABadFieldIsNamedWithWhatIsWrong(string $field, mixed $value, string $expected): void
    {
        $data = self::valid();
        if ($value === null) {
            unset($data[$field]);
        } else {
            $data[$field] = $value;
        }

        try {
            AircraftInput::fromArray($data);
            self::fail('Expected a ValidationException');
        } catch (ValidationException $e) {
            self::assertSame([$field => $expected], $e->fields);
        }
    }

    /** @return iterable<string, array{string}> */
    public static function unicodeSpaces(): iterable
    {
        yield 'ideographic space U+3000' => ["\u{3000}"];
        yield 'no-break space U+00A0' => ["\u{00A0}"];
        yield 'next line U+0085' => ["\u{0085}"];
        yield 'ogham space mark U+1680' => ["\u{1680}"];
        foreach (\range(0x2000, 0x200A) as $code) {
            yield \sprintf('U+%04X', $code) => [\mb_chr($code, 'UTF-8')];
        }
        yield 'line separator U+2028' => ["\u{2028}"];
        yield 'paragraph separator U+2029' => ["\u{2029}"];
        yield 'narrow no-break space U+202F' => ["\u{202F}"];
        yield 'medium mathematical space U+205F' => ["\u{205F}"];
        yield 'byte order mark U+FEFF' => ["\u{FEFF}"];
        yield 'a mix with ASCII blanks' => [" \u{3000}\t\u{00A0}\u{FEFF} \n"];
    }

    #[DataProvider('unicodeSpaces')]
    public function testATitleOfUnicodeSpacesOnlyIsEmpty(string $spaces): void
    {
        try {
            AircraftInput::fromArray(['title' => $spaces . $spaces] + self::valid());
            self::fail('Expected a ValidationException');
        } catch (ValidationException $e) {
            self::assertSame(['title' => 'must not be empty'], $e->fields);
        }
    }

    public function testUnicodeSpacesAroundATitleAreKeptAsSent(): void
    {
        $input = AircraftInput::fromArray(['title' => "\u{3000}Ту-204\u{00A0}"] + self::valid());

        self::assertSame("\u{3000}Ту-204\u{00A0}", $input->title);
    }

    public function testEveryBadFieldIsReportedAtOnce(): void
    {
        try {
            AircraftInput::fromArray([]);
            self::fail('Expected a ValidationException');
        } catch (ValidationException $e) {
            self::assertSame(['number', 'title', 'serial_number', 'assembly_date', 'added_at'], \array_keys($e->fields));
        }
    }

    public function testALeapDayIsARealDay(): void
    {
        $input = AircraftInput::fromArray(['assembly_date' => '2024-02-29'] + self::valid());

        self::assertSame('2024-02-29', $input->assemblyDate);
    }
}
