<?php

declare(strict_types=1);

namespace Bobbin\Async\Internal;

use Bobbin\Async\FiberLocalState;

/**
 * The registered FiberLocalStates, saved and restored around every wait of a fiber (the waits
 * of src/Async call leave() before suspending and enter() once resumed). With none registered
 * a wait pays one array comparison.
 *
 * @internal
 */
final class FiberLocalStates
{
    /** @var list<FiberLocalState> */
    public static array $states = [];

    private function __construct()
    {
    }

    /** @return list<mixed> */
    public static function leave(): array
    {
        $saved = [];
        foreach (self::$states as $state) {
            $saved[] = $state->save();
        }

        return $saved;
    }

    /** @param list<mixed> $saved what leave() returned, in the fiber that is continuing */
    public static function enter(array $saved): void
    {
        foreach (self::$states as $i => $state) {
            $state->restore($saved[$i] ?? null);
        }
    }
}
