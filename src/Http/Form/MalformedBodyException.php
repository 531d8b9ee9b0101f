<?php

declare(strict_types=1);

namespace Bobbin\Http\Form;

/**
 * A request body that does not follow the format its Content-Type names (the client gets 400).
 *
 * @internal caught by the server, which answers 400
 */
final class MalformedBodyException extends \RuntimeException
{
}
