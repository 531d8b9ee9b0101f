<?php

declare(strict_types=1);

namespace Bobbin\Leaks;

/** What differs between the state before a request and after it, as leaks. Pure. */
final class StateComparison
{
    private function __construct()
    {
    }

    /**
     * @param string $ownCode callbacks whose code lives under this directory are the server's own (not leaks)
     * @return list<Leak>
     */
    public static function leaks(ProcessState $before, ProcessState $after, string $ownCode): array
    {
        $leaks = [];
        foreach ($after->statics as $name => $fingerprint) {
            // A class first loaded during the request starts with its declared values: not a change.
            if (isset($before->statics[$name]) && $before->statics[$name] !== $fingerprint) {
                $leaks[] = new Leak(LeakKind::StaticProperty, $name);
            }
        }
        foreach ($after->globals as $name => $fingerprint) {
            if (($before->globals[$name] ?? null) !== $fingerprint) {
                $leaks[] = new Leak(LeakKind::GlobalVariable, '$' . $name, isset($before->globals[$name]) ? 'changed' : 'set');
            }
        }
        foreach ($after->ini as $name => $value) {
            if (\array_key_exists($name, $before->ini) && $before->ini[$name] !== $value) {
                $leaks[] = new Leak(LeakKind::IniSetting, $name, \sprintf('%s → %s', \var_export($before->ini[$name], true), \var_export($value, true)));
            }
        }
        if ($before->timezone !== $after->timezone) {
            $leaks[] = new Leak(LeakKind::Timezone, 'date_default_timezone_set()', $before->timezone . ' → ' . $after->timezone);
        }
        if ($before->locale !== $after->locale) {
            $leaks[] = new Leak(LeakKind::Locale, 'setlocale()', $before->locale . ' → ' . $after->locale);
        }
        if ($after->outputBuffers > $before->outputBuffers) {
            $leaks[] = new Leak(LeakKind::OutputBuffer, 'ob_start()', \sprintf('%d left open', $after->outputBuffers - $before->outputBuffers));
        }
        foreach ($after->callbacks as $id => $origin) {
            if (!isset($before->callbacks[$id]) && !\str_starts_with($origin, $ownCode)) {
                $leaks[] = new Leak(LeakKind::LoopCallback, $origin === '' ? 'a callback' : $origin);
            }
        }
        foreach ($after->pools as $pool => [$inUse, $inTransaction]) {
            [$inUseBefore, $inTransactionBefore] = $before->pools[$pool] ?? [0, 0];
            if ($inUse > $inUseBefore) {
                $leaks[] = new Leak(LeakKind::PoolConnection, $pool, \sprintf('%d not given back', $inUse - $inUseBefore));
            }
            if ($inTransaction > $inTransactionBefore) {
                $leaks[] = new Leak(LeakKind::OpenTransaction, $pool, \sprintf('%d connection(s) given back inside a transaction', $inTransaction - $inTransactionBefore));
            }
        }

        return $leaks;
    }
}
