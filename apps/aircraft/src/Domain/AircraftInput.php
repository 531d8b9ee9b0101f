<?php

declare(strict_types=1);

namespace Bobbin\Apps\Aircraft\Domain;

/**
 * The five fields a client sends to create or replace an aircraft, validated: only a valid
 * input object can be built, so the repository never sees bad data.
 */
final class AircraftInput
{
    /** Longest accepted values, in characters. */
    public const MAX_LENGTHS = ['number' => 32, 'title' => 200, 'serial_number' => 64];

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
        $errors = [];
        $text = static function (string $field) use ($data, &$errors): string {
            if (!\array_key_exists($field, $data) || $data[$field] === null) {
                $errors[$field] = 'is required';

                return '';
            }
            $value = $data[$field];
            if (!\is_string($value)) {
                $errors[$field] = 'must be a string';

                return '';
            }
            if (\trim($value) === '') {
                $errors[$field] = 'must not be empty';

                return '';
            }
            $max = self::MAX_LENGTHS[$field] ?? null;
            if ($max !== null && \mb_strlen($value, 'UTF-8') > $max) {
                $errors[$field] = "must be at most $max characters";
            }
            if (!\mb_check_encoding($value, 'UTF-8') || \preg_match('/[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]/', $value) === 1) {
                $errors[$field] = 'must be printable UTF-8 text';
            }

            return $value;
        };
        $date = static function (string $field) use ($text, &$errors): string {
            $value = $text($field);
            if (isset($errors[$field])) {
                return $value;
            }
            if (\preg_match('/^(\d{4})-(\d{2})-(\d{2})$/', $value, $m) !== 1
                || !\checkdate((int) $m[2], (int) $m[3], (int) $m[1])
                || (int) $m[1] < 1
            ) {
                $errors[$field] = 'must be a real calendar day as YYYY-MM-DD';
            }

            return $value;
        };

        $input = new self(
            $text('number'),
            $text('title'),
            $text('serial_number'),
            $date('assembly_date'),
            $date('added_at'),
        );
        if ($errors !== []) {
            throw new ValidationException($errors);
        }

        return $input;
    }
}
