<?php

declare(strict_types=1);

namespace Bobbin\Cli;

/** What CommandLine::parse() found: the positional argument, the options given, or a request for help. */
final class ParsedArguments
{
    /**
     * @param array<string, string> $options name => its last value as given
     * @param array<string, list<string>> $every name => every value given, in order (for options that repeat)
     */
    public function __construct(
        public readonly ?string $positional,
        public readonly array $options,
        public readonly array $every,
        public readonly bool $help,
    ) {
    }
}
