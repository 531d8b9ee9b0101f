<?php

declare(strict_types=1);

namespace Bobbin\Jobs;

/** A frame on a job connection broke the rules (too long, unknown kind, truncated): the connection is dropped. */
final class JobProtocolException extends JobException
{
}
