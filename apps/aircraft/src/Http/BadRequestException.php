<?php

declare(strict_types=1);

namespace Bobbin\Apps\Aircraft\Http;

/** The request body could not be read as a JSON object (HTTP 400). */
final class BadRequestException extends \RuntimeException
{
}
