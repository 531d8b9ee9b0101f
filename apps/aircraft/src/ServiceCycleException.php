<?php

declare(strict_types=1);

namespace Bobbin\Apps\Aircraft;

use Psr\Container\ContainerExceptionInterface;

/** A service's factory asked, directly or not, for the service itself. */
final class ServiceCycleException extends \LogicException implements ContainerExceptionInterface
{
}
