<?php

declare(strict_types=1);

namespace Bobbin\Leaks;

/** What a request left behind for the next one, by where it lives. */
enum LeakKind: string
{
    case StaticProperty = 'static_property';
    case GlobalVariable = 'global_variable';
    case IniSetting = 'ini_setting';
    case Timezone = 'timezone';
    case Locale = 'locale';
    case OutputBuffer = 'output_buffer';
    case LoopCallback = 'loop_callback';
    case PoolConnection = 'pool_connection';
    case OpenTransaction = 'open_transaction';

    /** What the next request meets, in words for the log. */
    public function consequence(): string
    {
        return match ($this) {
            self::StaticProperty => 'a static property the request changed: the next requests see its value',
            self::GlobalVariable => 'a global variable the request set or changed: the next requests see it',
            self::IniSetting => 'an ini setting the request changed: it stays for the next requests',
            self::Timezone => 'the default timezone the request changed: the next requests format dates in it',
            self::Locale => 'the locale the request changed: the next requests format and compare with it',
            self::OutputBuffer => 'output buffers the request opened and did not close: the next requests\' output goes into them',
            self::LoopCallback => 'a timer or watcher the request left on the loop: it runs after the request, with what it captured',
            self::PoolConnection => 'database connections the request took and did not give back: the pool has fewer for everyone',
            self::OpenTransaction => 'a transaction the request began and did not end: the client rolled it back (its writes are lost) or closed the connection',
        };
    }
}
