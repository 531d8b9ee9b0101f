<?php

declare(strict_types=1);

namespace Bobbin\Jobs;

/**
 * On a task class: the classes whose objects it may carry to its job worker, in its properties or
 * in its result. Nothing else is ever instantiated from a task or a result: unserialize() runs
 * with exactly these (and the task's own class) allowed, so even a sender holding the key cannot
 * hand a job worker, or a job worker its caller, an object of any other class. Enums need no
 * declaration (they cannot run code when unserialized); scalars and arrays never do.
 *
 *     #[Carries(Money::class, Currency::class, \DateTimeImmutable::class)]
 *     final class InvoiceTask implements Task { … }
 *
 * A task that carries an object of a class it does not declare is refused at submit(), naming
 * it; a result that does fails the task. Declarations of parent classes count for their children.
 */
#[\Attribute(\Attribute::TARGET_CLASS | \Attribute::IS_REPEATABLE)]
final class Carries
{
    /** @var list<class-string> */
    public readonly array $classes;

    /** @param class-string ...$classes */
    public function __construct(string ...$classes)
    {
        $this->classes = \array_values($classes);
    }
}
