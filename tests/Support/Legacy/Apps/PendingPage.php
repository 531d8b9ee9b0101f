<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Legacy\Apps;

/** A request of a Browser under way: page() waits for its response. */
final class PendingPage
{
    private ?Page $page = null;

    /**
     * @param resource $process
     * @param array<int, resource> $pipes
     * @param \Closure(Page): void $record
     */
    public function __construct(private $process, private readonly array $pipes, private readonly \Closure $record)
    {
    }

    public function page(): Page
    {
        if ($this->page === null) {
            $raw = (string) \stream_get_contents($this->pipes[1]);
            $errors = (string) \stream_get_contents($this->pipes[2]);
            $status = \proc_close($this->process);
            if ($status !== 0) {
                throw new \RuntimeException("curl failed ($status): $errors");
            }
            $this->page = Page::parse($raw);
            ($this->record)($this->page);
        }

        return $this->page;
    }
}
