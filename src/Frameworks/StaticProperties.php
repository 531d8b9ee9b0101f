<?php

declare(strict_types=1);

namespace Bobbin\Frameworks;

/**
 * The static properties of some classes as they were at boot, put back after each request.
 *
 * PHP-FPM starts every request with fresh statics; a long-lived worker keeps whatever the last
 * request left in them. No adapter can know an application's statics, so the application names
 * the classes whose statics hold request state (docs/FRAMEWORKS.md). Captured once, after boot;
 * restore() is a handful of property writes.
 */
final class StaticProperties
{
    /** @param list<array{\ReflectionProperty, mixed}> $values */
    private function __construct(private readonly array $values)
    {
    }

    /** @param class-string ...$classes */
    public static function capture(string ...$classes): self
    {
        $values = [];
        foreach ($classes as $class) {
            foreach ((new \ReflectionClass($class))->getProperties(\ReflectionProperty::IS_STATIC) as $property) {
                if ($property->isReadOnly() || !$property->isInitialized()) {
                    continue;
                }
                $values[] = [$property, $property->getValue()];
            }
        }

        return new self($values);
    }

    public function restore(): void
    {
        foreach ($this->values as [$property, $value]) {
            $property->setValue(null, $value);
        }
    }
}
