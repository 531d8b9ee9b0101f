<?php

declare(strict_types=1);

namespace Bobbin\Apps\Aircraft\Domain;

/** Another aircraft already has this registration number (HTTP 409). */
final class DuplicateNumberException extends \DomainException
{
    public function __construct(public readonly string $number, ?\Throwable $previous = null)
    {
        parent::__construct(\sprintf('An aircraft with number "%s" already exists', $number), 0, $previous);
    }
}
