<?php

declare(strict_types=1);

namespace Bobbin\Leaks;

use Bobbin\Async\Mutex;
use Bobbin\Http\RequestCancellation;
use Bobbin\Http\RequestIds;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\RequestHandlerInterface;

/**
 * --detect-leaks: runs the application one request at a time (so a difference belongs to one
 * request) and compares what the process holds before and after each (ProcessState), reporting
 * what changed. For development and staging: the snapshot costs tens of microseconds and more
 * with many application classes, and requests no longer overlap.
 */
final class LeakDetectingHandler implements RequestHandlerInterface
{
    private readonly Mutex $oneAtATime;
    private readonly ApplicationStatics $statics;
    private readonly string $ownCode;

    public function __construct(
        private readonly RequestHandlerInterface $application,
        private readonly LeakReporter $reporter,
    ) {
        $this->oneAtATime = new Mutex();
        $this->statics = new ApplicationStatics();
        $this->ownCode = \dirname(__DIR__) . '/';
    }

    public function handle(ServerRequestInterface $request): ResponseInterface
    {
        $lock = $this->oneAtATime->acquire(RequestCancellation::of($request));
        try {
            $before = ProcessState::capture($this->statics);
            try {
                return $this->application->handle($request);
            } finally {
                $this->reporter->report(
                    StateComparison::leaks($before, ProcessState::capture($this->statics), $this->ownCode),
                    $request->getMethod(),
                    $request->getRequestTarget(),
                    (string) $request->getAttribute(RequestIds::ATTRIBUTE, ''),
                );
            }
        } finally {
            $lock->release();
        }
    }
}
