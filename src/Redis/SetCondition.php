<?php

declare(strict_types=1);

namespace Bobbin\Redis;

/** When SET writes: always, only when the key is new (NX), only when it exists (XX). */
enum SetCondition: string
{
    case Always = '';
    case IfNew = 'NX';
    case IfExists = 'XX';
}
