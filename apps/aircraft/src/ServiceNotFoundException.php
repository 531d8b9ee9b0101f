<?php

declare(strict_types=1);

namespace Bobbin\Apps\Aircraft;

use Psr\Container\NotFoundExceptionInterface;

final class ServiceNotFoundException extends \RuntimeException implements NotFoundExceptionInterface
{
}
