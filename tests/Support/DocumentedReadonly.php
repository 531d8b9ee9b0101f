<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support;

use PHPUnit\Framework\Assert;

/**
 * For value objects whose properties are documented `@readonly` rather than declared readonly
 * (PHP 8.2's JIT writes a readonly property through a slow helper): every property is public and
 * says `@readonly`; the caller compares the names and types with what they were.
 */
final class DocumentedReadonly
{
    /**
     * @param class-string $class
     * @return array<string, string> each property's name and declared type
     */
    public static function propertyTypes(string $class): array
    {
        $types = [];
        foreach ((new \ReflectionClass($class))->getProperties() as $property) {
            Assert::assertTrue($property->isPublic(), $property->getName());
            Assert::assertStringContainsString('@readonly', (string) $property->getDocComment(), $property->getName());
            $types[$property->getName()] = (string) $property->getType();
        }

        return $types;
    }
}
