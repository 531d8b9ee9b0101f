<?php

declare(strict_types=1);

// An APP_FILE that boots, reports ready, and dies a moment later: a crash loop.
use Bobbin\Async\Timer;
use Nyholm\Psr7\Response;

Timer::after(0.2, static fn () => exit(4));

return static fn (): Response => new Response(200, [], 'short-lived');
