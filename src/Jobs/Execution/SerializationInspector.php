<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Execution;

/**
 * Finds the value that keeps a task (or a result) from crossing to another process, and names
 * where it sits. serialize() alone is not enough: it turns a resource into 0 without a word, and
 * when it refuses a closure its message does not say which property held it.
 *
 * Walks what serialize() would write: __serialize()'s array, __sleep()'s properties, or every
 * property; objects of internal classes (and classes built on them) are tried with serialize()
 * itself, since only the engine knows which of them refuse (PgSql\Connection, Fiber, Generator,
 * CurlHandle, …). Each object is visited once, so cycles end.
 */
final class SerializationInspector
{
    /** @var array<string, bool> by class: whether serialize() itself must be asked (engineDecides()) */
    private static array $engineDecides = [];
    /** @var list<string>|null during one findProblem() call */
    private static ?array $allowed = null;
    private static string $taskClass = '';

    private function __construct()
    {
    }

    /**
     * @param list<string>|null $allowedClasses the classes whose objects may travel (enums always
     *        may); null: any class
     * @param string $taskClass the task whose declaration (#[Carries]) $allowedClasses is, for the message
     * @return array{string, string}|null [where, what is wrong] for the first value that cannot
     *         be serialized (or is of a class not allowed), or null when everything can
     */
    public static function findProblem(mixed $value, string $root, ?array $allowedClasses = null, string $taskClass = ''): ?array
    {
        $seen = [];
        $outer = [self::$allowed, self::$taskClass]; // a __serialize() may submit a task of its own
        self::$allowed = $allowedClasses;
        self::$taskClass = $taskClass;
        try {
            return self::visit($value, $root, $seen);
        } finally {
            [self::$allowed, self::$taskClass] = $outer;
        }
    }

    /**
     * @param array<int, true> $seen object ids already visited
     * @return array{string, string}|null
     */
    private static function visit(mixed $value, string $path, array &$seen): ?array
    {
        if (\is_array($value)) {
            foreach ($value as $key => $item) {
                if (\is_array($item) || \is_object($item) || !self::isPlain($item)) {
                    $problem = self::visit($item, $path . '[' . \var_export($key, true) . ']', $seen);
                    if ($problem !== null) {
                        return $problem;
                    }
                }
            }

            return null;
        }
        if (!\is_object($value)) {
            if (self::isPlain($value)) {
                return null;
            }

            return [$path, \is_resource($value) ? \sprintf('is a resource (%s)', \get_resource_type($value)) : 'is a closed resource'];
        }
        if ($value instanceof \Closure) {
            return [$path, 'is a Closure'];
        }
        $id = \spl_object_id($value);
        if (isset($seen[$id])) {
            return null;
        }
        $seen[$id] = true;
        if ($value instanceof \UnitEnum) {
            return null;
        }
        $class = $value::class;
        if (\str_contains($class, '@anonymous')) {
            return [$path, 'is an object of an anonymous class'];
        }
        if (self::$allowed !== null && !CarriedClasses::allows(self::$allowed, $value)) {
            return [$path, \sprintf(
                'is an object of %s, which %s does not declare it may carry: add #[\\Bobbin\\Jobs\\Carries(\\%s::class)] to %s',
                $class,
                self::$taskClass,
                $class,
                self::$taskClass,
            )];
        }
        if (\method_exists($value, '__serialize')) {
            try {
                $properties = $value->__serialize();
            } catch (\Throwable $refused) {
                // A connection, a pool, a channel (Async\OwnsResources) refuses by throwing.
                return [$path, \sprintf('is a %s, which cannot be serialized (%s)', $class, $refused->getMessage())];
            }

            return self::visitProperties($properties, $path, $seen);
        }
        if (!$value instanceof \stdClass && self::engineDecides($value)) {
            try {
                \serialize($value);
            } catch (\Throwable $refused) {
                // A closure in a user property of such an object is better named than the object.
                return self::visitProperties((array) $value, $path, $seen)
                    ?? [$path, \sprintf('is a %s, which cannot be serialized (%s)', $class, $refused->getMessage())];
            }

            return null;
        }
        if (\method_exists($value, '__sleep')) {
            /** @var mixed $names */
            $names = $value->__sleep();

            return \is_array($names) ? self::visitSleepProperties($value, $names, $path, $seen) : null;
        }

        return self::visitProperties((array) $value, $path, $seen);
    }

    /**
     * @param array<mixed> $properties as (array) casts an object: private names mangled
     * @param array<int, true> $seen
     * @return array{string, string}|null
     */
    private static function visitProperties(array $properties, string $path, array &$seen): ?array
    {
        foreach ($properties as $name => $item) {
            if (\is_array($item) || \is_object($item) || !self::isPlain($item)) {
                $name = (string) $name;
                $bare = ($zero = \strrpos($name, "\0")) === false ? $name : \substr($name, $zero + 1);
                $problem = self::visit($item, $path . '->' . $bare, $seen);
                if ($problem !== null) {
                    return $problem;
                }
            }
        }

        return null;
    }

    /**
     * @param array<mixed> $names what __sleep() returned
     * @param array<int, true> $seen
     * @return array{string, string}|null
     */
    private static function visitSleepProperties(object $object, array $names, string $path, array &$seen): ?array
    {
        $values = [];
        foreach ($names as $name) {
            if (!\is_string($name)) {
                continue;
            }
            for ($class = new \ReflectionClass($object); $class !== false; $class = $class->getParentClass()) {
                if ($class->hasProperty($name)) {
                    $property = $class->getProperty($name);
                    if ($property->isInitialized($object)) {
                        $values[$name] = $property->getValue($object);
                    }
                    break;
                }
            }
        }

        return self::visitProperties($values, $path, $seen);
    }

    /** Scalars and null cross as they are. */
    private static function isPlain(mixed $value): bool
    {
        return $value === null || \is_scalar($value);
    }

    /** Whether only serialize() itself can say: an internal class, or a user class built on one. */
    private static function engineDecides(object $object): bool
    {
        $class = $object::class;
        if (isset(self::$engineDecides[$class])) {
            return self::$engineDecides[$class];
        }
        $decides = $object instanceof \Serializable;
        for ($reflection = new \ReflectionClass($class); !$decides && $reflection !== false; $reflection = $reflection->getParentClass()) {
            $decides = $reflection->isInternal();
        }
        if (\count(self::$engineDecides) < 4096) {
            self::$engineDecides[$class] = $decides;
        }

        return $decides;
    }
}
