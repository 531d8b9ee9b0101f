<?php

declare(strict_types=1);

// Patterns written in this file (the worker compiled them ahead, RegexCacheWarmer) behave as
// in a process that compiles them itself: the error state starts clean, a bad one still warns.
$before = ['error_get_last' => \error_get_last(), 'preg_last_error' => \preg_last_error()];
$warnings = [];
\set_error_handler(static function (int $type, string $message) use (&$warnings): bool {
    $warnings[] = $message;

    return true;
});
$matched = \preg_match('/^(\w+)-(\d+)$/', 'post-42', $groups);
$bad = \preg_match('/(unclosed/', 'post-42'); // @phpstan-ignore regexp.pattern (its failure is the point)
$badError = \preg_last_error();
\restore_error_handler();
echo \json_encode($before + [
    'matched' => $matched,
    'groups' => $groups,
    'bad' => $bad,
    'bad error' => $badError === \PREG_INTERNAL_ERROR,
    'warned' => \count($warnings) === 1 && \str_contains($warnings[0], 'missing closing parenthesis'),
]);
