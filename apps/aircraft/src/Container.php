<?php

declare(strict_types=1);

namespace Bobbin\Apps\Aircraft;

use Closure;
use Psr\Container\ContainerInterface;

/**
 * A minimal PSR-11 container: one factory per id, each service built on first use and then
 * shared. Long-lived services only — nothing request-scoped lives here.
 */
final class Container implements ContainerInterface
{
    /** @var array<string, mixed> */
    private array $instances = [];
    /** @var array<string, true> ids being built, to report cycles instead of recursing forever */
    private array $building = [];

    /** @param array<string, Closure(self): mixed> $factories */
    public function __construct(private readonly array $factories)
    {
    }

    public function get(string $id): mixed
    {
        if (\array_key_exists($id, $this->instances)) {
            return $this->instances[$id];
        }
        if (!isset($this->factories[$id])) {
            throw new ServiceNotFoundException("No service \"$id\" is defined");
        }
        if (isset($this->building[$id])) {
            throw new ServiceCycleException("Service \"$id\" depends on itself");
        }
        $this->building[$id] = true;
        try {
            return $this->instances[$id] = ($this->factories[$id])($this);
        } finally {
            unset($this->building[$id]);
        }
    }

    public function has(string $id): bool
    {
        return isset($this->factories[$id]);
    }
}
