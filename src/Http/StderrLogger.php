<?php

declare(strict_types=1);

namespace Bobbin\Http;

/*
 * The logger moved to its own namespace: Bobbin\Log\StderrLogger. This alias keeps code
 * written against the old name working; it goes in a later release.
 */
\class_alias(\Bobbin\Log\StderrLogger::class, StderrLogger::class);
