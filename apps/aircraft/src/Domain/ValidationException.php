<?php

declare(strict_types=1);

namespace Bobbin\Apps\Aircraft\Domain;

/** The request was well-formed but its values are not acceptable (HTTP 422). */
final class ValidationException extends \DomainException
{
    /** @param array<string, string> $fields field name => what is wrong with it */
    public function __construct(public readonly array $fields, string $message = 'The request has invalid fields')
    {
        parent::__construct($message);
    }
}
