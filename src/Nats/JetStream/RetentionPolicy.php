<?php

declare(strict_types=1);

namespace Bobbin\Nats\JetStream;

enum RetentionPolicy: string
{
    /** Messages stay until a limit (count, bytes, age) removes them. */
    case Limits = 'limits';
    /** Messages stay while a consumer has not acknowledged them. */
    case Interest = 'interest';
    /** A message is removed once acknowledged: a queue of work, one consumer per subject. */
    case WorkQueue = 'workqueue';
}
