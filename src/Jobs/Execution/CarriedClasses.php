<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Execution;

use Bobbin\Jobs\Carries;

/** What a task class declares it may carry (#[Carries]), read once per class and remembered. */
final class CarriedClasses
{
    private const REMEMBERED = 4096;

    /** @var array<string, list<string>> by task class */
    private static array $declared = [];

    private function __construct()
    {
    }

    /**
     * The classes $taskClass declares, with its parents' declarations. An unknown class declares
     * nothing.
     *
     * @return list<string>
     */
    public static function of(string $taskClass): array
    {
        if (isset(self::$declared[$taskClass])) {
            return self::$declared[$taskClass];
        }
        $classes = [];
        if (\class_exists($taskClass)) {
            for ($reflection = new \ReflectionClass($taskClass); $reflection !== false; $reflection = $reflection->getParentClass()) {
                foreach ($reflection->getAttributes(Carries::class) as $attribute) {
                    foreach ($attribute->newInstance()->classes as $class) {
                        $classes[\strtolower(\ltrim($class, '\\'))] = \ltrim($class, '\\');
                    }
                }
            }
        }
        $classes = \array_values($classes);
        if (\count(self::$declared) < self::REMEMBERED) {
            self::$declared[$taskClass] = $classes;
        }

        return $classes;
    }

    /**
     * Whether an object of $class may travel with $taskClass: declared, or an enum.
     *
     * @param list<string> $allowed what of() returned (and for a task, the task's own class)
     */
    public static function allows(array $allowed, object $object): bool
    {
        if ($object instanceof \UnitEnum) {
            return true;
        }
        $class = $object::class;
        foreach ($allowed as $declared) {
            if (\strcasecmp($declared, $class) === 0) {
                return true;
            }
        }

        return false;
    }
}
