<?php

declare(strict_types=1);

namespace Bobbin\Leaks;

/**
 * The static properties of the application's own classes: user classes whose file is neither in
 * Bobbin's src/ nor under a vendor/ directory (libraries keep caches there by design; a leak
 * through them shows where the application calls them). Classes are looked at once, when first
 * seen; declared classes only grow, so each snapshot scans only the new ones.
 */
final class ApplicationStatics
{
    /** @var list<\ReflectionProperty> */
    private array $properties = [];
    private int $classesSeen = 0;
    private readonly string $bobbinSource;

    public function __construct()
    {
        $this->bobbinSource = \dirname(__DIR__) . '/';
    }

    /** @return array<string, string> "Class::$property" => fingerprint of its value */
    public function fingerprints(): array
    {
        $this->discoverNewClasses();
        $fingerprints = [];
        foreach ($this->properties as $property) {
            if ($property->isInitialized()) {
                $fingerprints[$property->class . '::$' . $property->name] = Fingerprint::of($property->getValue());
            }
        }

        return $fingerprints;
    }

    private function discoverNewClasses(): void
    {
        $classes = \get_declared_classes();
        $count = \count($classes);
        for ($i = $this->classesSeen; $i < $count; $i++) {
            $class = new \ReflectionClass($classes[$i]);
            $file = $class->getFileName();
            if ($file === false || \str_starts_with($file, $this->bobbinSource) || \str_contains($file, '/vendor/')) {
                continue;
            }
            foreach ($class->getProperties(\ReflectionProperty::IS_STATIC) as $property) {
                // Inherited statics are the parent's storage, reported under the parent.
                if ($property->class === $class->name) {
                    $this->properties[] = $property;
                }
            }
        }
        $this->classesSeen = $count;
    }
}
