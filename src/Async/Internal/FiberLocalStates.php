<?php

declare(strict_types=1);

namespace Bobbin\Async\Internal;

use Bobbin\Async\FiberLocalState;

/**
 * The registered FiberLocalStates, saved and restored around the waits of a fiber (the waits
 * of src/Async call leave() before suspending when $pending, and enter() once resumed). With
 * none registered, or only states saved after changes (Async::keepPerFiber()) and none
 * changed, a wait pays one property read: measured, calling the states' save() at every wait
 * cost ~4 % of a hello-world request under the JIT.
 *
 * @internal
 */
final class FiberLocalStates
{
    /** @var list<FiberLocalState> */
    public static array $states = [];
    /** Whether the current fiber's next wait must call leave(). */
    public static bool $pending = false;
    /** Some state is saved at every wait, changed or not. */
    public static bool $everyWait = false;

    private function __construct()
    {
    }

    /** Forgets every registered state (for tests that register their own). */
    public static function forgetAll(): void
    {
        self::$states = [];
        self::$pending = self::$everyWait = false;
    }

    /**
     * What each state's save() returned, by its index; null when none had anything to keep (the
     * usual wait), so the fiber's continuation has nothing to put back.
     *
     * @return array<int, mixed>|null
     */
    public static function leave(): ?array
    {
        $saved = null;
        foreach (self::$states as $i => $state) {
            $value = $state->save();
            if ($value !== null) {
                $saved[$i] = $value;
            }
        }
        // Every state now holds what a fresh fiber finds; a save() may have flagged a change
        // while it took its state out.
        self::$pending = self::$everyWait;

        return $saved;
    }

    /** @param array<int, mixed>|null $saved what leave() returned, in the fiber that is continuing */
    public static function enter(?array $saved): void
    {
        if ($saved === null) {
            return;
        }
        self::$pending = true;
        foreach ($saved as $i => $value) {
            self::$states[$i]->restore($value);
        }
    }
}
