<?php

declare(strict_types=1);

namespace Bobbin\Http\Message;

/**
 * One server-sent event (HTML Living Standard, "Server-sent events"), in the form an
 * `EventSource` reads: `event:`, `id:`, `retry:` and one `data:` line per line of the data,
 * ended by an empty line. Yield it from an EventStream's generator.
 */
final class ServerSentEvent implements \Stringable
{
    private ?string $comment = null;

    /**
     * @param string $data any text; its line breaks become separate `data:` lines
     * @param string|null $event the event type (`addEventListener(type)`; "message" when null)
     * @param string|null $id the last event id a reconnecting client sends back (Last-Event-ID)
     * @param int|null $retry the reconnection time the client should use, in milliseconds
     * @throws \InvalidArgumentException for an event type or id with a line break (or an id with NUL)
     */
    public function __construct(
        public readonly string $data,
        public readonly ?string $event = null,
        public readonly ?string $id = null,
        public readonly ?int $retry = null,
    ) {
        if ($event !== null && \strpbrk($event, "\r\n") !== false) {
            throw new \InvalidArgumentException('An event type cannot hold a line break');
        }
        if ($id !== null && \strpbrk($id, "\r\n\0") !== false) {
            throw new \InvalidArgumentException('An event id cannot hold a line break or NUL');
        }
        if ($retry !== null && $retry < 0) {
            throw new \InvalidArgumentException('A retry time cannot be negative');
        }
    }

    /** A comment (`: text`): clients ignore it; it keeps an idle stream and its proxies alive. */
    public static function comment(string $text = ''): self
    {
        $comment = new self('');
        $comment->comment = (string) \preg_replace('/\r\n|\r|\n/', ' ', $text);

        return $comment;
    }

    public function __toString(): string
    {
        if ($this->comment !== null) {
            return ': ' . $this->comment . "\n\n";
        }
        $wire = '';
        if ($this->event !== null) {
            $wire .= 'event: ' . $this->event . "\n";
        }
        if ($this->id !== null) {
            $wire .= 'id: ' . $this->id . "\n";
        }
        if ($this->retry !== null) {
            $wire .= 'retry: ' . $this->retry . "\n";
        }

        return $wire . 'data: ' . \preg_replace('/\r\n|\r|\n/', "\ndata: ", $this->data) . "\n\n";
    }
}
