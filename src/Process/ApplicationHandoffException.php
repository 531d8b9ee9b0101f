<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Psr\Http\Server\RequestHandlerInterface;

/**
 * Hands the application to ApplicationLoader from code that cannot return it: a front
 * controller of symfony/runtime ends with exit() after running the application, so its runtime
 * throws this instead of running (Bobbin\Frameworks\Symfony\Runtime).
 */
final class ApplicationHandoffException extends \RuntimeException
{
    public function __construct(public readonly RequestHandlerInterface $handler)
    {
        parent::__construct('The application was handed over to Bobbin while its APP_FILE was loading');
    }
}
