<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Symfony;

use Bobbin\Process\ApplicationHandoffException;
use Psr\Http\Server\RequestHandlerInterface;
use Symfony\Component\Runtime\RunnerInterface;

/**
 * What the Bobbin runtime gives autoload_runtime.php to run under `bin/bobbin serve`: instead of
 * serving one request from the globals and exiting, it hands the handler to Bobbin's
 * ApplicationLoader (the front controller's exit() is never reached).
 */
final class HandoffRunner implements RunnerInterface
{
    public function __construct(private readonly RequestHandlerInterface $handler)
    {
    }

    public function run(): int
    {
        throw new ApplicationHandoffException($this->handler);
    }
}
