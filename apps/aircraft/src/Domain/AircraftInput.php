<?php

declare(strict_types=1);

namespace Bobbin\Apps\Aircraft\Domain;

/**
 * The five fields a client sends to create or replace an aircraft, validated: only a valid
 * input object can be built, so the repository never sees bad data.
 *
 * This runs on every POST and PUT, so it is written as plain static calls with constant
 * patterns: no closures or other objects are built per request (they cost more than the checks),
 * and with as few matches as give the same answers (issue 41: one per field).
 */
final class AircraftInput
{
    /** Longest accepted values, in characters. */
    public const MAX_LENGTHS = ['number' => 32, 'title' => 200, 'serial_number' => 64];

    /**
     * What is wrong with a text field, in one anchored match: the whole value is white space (the
     * first branch: what trim() strips — ASCII blanks and NUL — plus the rest of Unicode's
     * White_Space, U+0085 and \p{Z}: U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F,
     * U+3000, and the byte order mark U+FEFF), or it holds a control character other than HT, LF
     * and CR (the `control` group). Through the u modifier it fails (false) on a string that is not
     * valid UTF-8. One match rather than one per check: a match costs more than its scan here.
     */
    private const FAULT = '/\A(?:[\s\x00\x{85}\p{Z}\x{FEFF}]*+\z|[^\x00-\x08\x0B\x0C\x0E-\x1F\x7F]*+(?<control>[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]))/u';
    /**
     * Without the D modifier, as it has always been: "$" also matches before one final "\n", so
     * "2008-05-19\n" passes. Kept so that what the API accepts does not change.
     */
    private const DAY = '/^(\d{4})-(\d{2})-(\d{2})$/';
    private const NOT_A_DAY = 'must be a real calendar day as YYYY-MM-DD';

    private function __construct(
        public readonly string $number,
        public readonly string $title,
        public readonly string $serialNumber,
        public readonly string $assemblyDate,
        public readonly string $addedAt,
    ) {
    }

    /**
     * @param array<mixed> $data a decoded JSON object
     * @throws ValidationException naming every field that is wrong
     */
    public static function fromArray(array $data): self
    {
        /** @var array<string, string> $errors field => what is wrong, in field order */
        $errors = [];
        $number = self::text($data, 'number', self::MAX_LENGTHS['number'], $errors);
        $title = self::text($data, 'title', self::MAX_LENGTHS['title'], $errors);
        $serialNumber = self::text($data, 'serial_number', self::MAX_LENGTHS['serial_number'], $errors);
        $assemblyDate = self::day($data, 'assembly_date', $errors);
        $addedAt = self::day($data, 'added_at', $errors);
        if ($errors !== []) {
            throw new ValidationException($errors);
        }

        return new self($number, $title, $serialNumber, $assemblyDate, $addedAt);
    }

    /**
     * A required, non-blank, printable UTF-8 string of at most $max characters (no limit: null).
     * On failure the reason goes to $errors and the value returned does not matter.
     *
     * @param array<mixed> $data
     * @param array<string, string> $errors
     */
    private static function text(array $data, string $field, ?int $max, array &$errors): string
    {
        $value = $data[$field] ?? null;
        if (!\is_string($value)) {
            $errors[$field] = $value === null ? 'is required' : 'must be a string';

            return '';
        }
        $fault = \preg_match(self::FAULT, $value, $m);
        if ($fault === 1 && !isset($m['control'])) {
            $errors[$field] = 'must not be empty';
        } elseif ($fault !== 0) {
            $errors[$field] = 'must be printable UTF-8 text';
        } elseif ($max !== null && \strlen($value) > $max && \mb_strlen($value, 'UTF-8') > $max) {
            // Bytes first: a string no longer in bytes than the limit cannot be longer in characters.
            $errors[$field] = "must be at most $max characters";
        }

        return $value;
    }

    /**
     * A text field holding a real calendar day as YYYY-MM-DD, year 1 or later.
     *
     * @param array<mixed> $data
     * @param array<string, string> $errors
     */
    private static function day(array $data, string $field, array &$errors): string
    {
        $value = $data[$field] ?? null;
        if (\is_string($value) && \preg_match(self::DAY, $value, $m) === 1) {
            // ASCII digits and dashes (and perhaps one final LF): text()'s checks would pass, so
            // the usual value skips them.
            if (!\checkdate((int) $m[2], (int) $m[3], (int) $m[1]) || (int) $m[1] < 1) {
                $errors[$field] = self::NOT_A_DAY;
            }

            return $value;
        }
        $value = self::text($data, $field, null, $errors);
        // Text, but not in the day's shape: what text() found wrong comes first.
        $errors[$field] ??= self::NOT_A_DAY;

        return $value;
    }
}
