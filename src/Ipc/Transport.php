<?php

declare(strict_types=1);

namespace Bobbin\Ipc;

enum Transport
{
    case Unix;
    case Tcp;
}
