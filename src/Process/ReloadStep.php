<?php

declare(strict_types=1);

namespace Bobbin\Process;

/** The steps of a reload the log reports (WorkerKind::reloadWords()). */
enum ReloadStep
{
    case NotRunning;
    case UnderWay;
    case Starting;
    case Complete;
    case Failed;
}
