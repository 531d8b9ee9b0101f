<?php

declare(strict_types=1);

namespace Bobbin\Apps\Aircraft\Http;

/** Integer query parameters, checked the one way the contract asks (422 with the field's rule). */
final class QueryParameters
{
    private function __construct()
    {
    }

    /**
     * @param array<mixed> $query
     * @param array<string, string> $errors gets "$name => rule" when the value is bad
     */
    public static function integer(array $query, string $name, int $default, int $min, int $max, array &$errors): int
    {
        if (!\array_key_exists($name, $query)) {
            return $default;
        }
        $raw = $query[$name];
        $value = \is_string($raw) && \preg_match('/^-?[0-9]{1,19}$/', $raw) === 1
            ? \filter_var($raw, \FILTER_VALIDATE_INT)
            : false;
        if ($value === false || $value < $min || $value > $max) {
            $errors[$name] = \sprintf('must be an integer from %d to %d', $min, $max);

            return $default;
        }

        return $value;
    }
}
