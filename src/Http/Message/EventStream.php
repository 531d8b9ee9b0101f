<?php

declare(strict_types=1);

namespace Bobbin\Http\Message;

use Closure;
use Psr\Http\Message\ResponseInterface;

/**
 * Server-sent events from a generator, for a PSR-15 handler:
 *
 *     return EventStream::response(function () use ($cancellation) {
 *         foreach ($prices as $price) {
 *             yield new ServerSentEvent(json_encode($price), event: 'price');
 *             Async::delay(1.0, $cancellation);     // the worker serves others meanwhile
 *         }
 *     });
 *
 * Each item goes to the client when it is yielded (a GeneratorStream): a ServerSentEvent as it
 * is (ServerSentEvent::comment() too), a string as the data of a plain "message" event,
 * anything else JSON-encoded as one.
 */
final class EventStream
{
    private function __construct()
    {
    }

    /**
     * A 200 response with the stream as its body, `Content-Type: text/event-stream`, no caching
     * and no buffering by a proxy (nginx's X-Accel-Buffering); $headers add to or replace those.
     *
     * @param iterable<mixed>|(Closure(): iterable<mixed>) $events
     * @param array<string, string|list<string>> $headers
     */
    public static function response(iterable|Closure $events, array $headers = []): ResponseInterface
    {
        return new Response(200, $headers + [
            'Content-Type' => 'text/event-stream',
            'Cache-Control' => 'no-cache',
            'X-Accel-Buffering' => 'no',
        ], self::fromGenerator($events));
    }

    /**
     * The body alone: each item formatted as it is yielded.
     *
     * @param iterable<mixed>|(Closure(): iterable<mixed>) $events
     */
    public static function fromGenerator(iterable|Closure $events): GeneratorStream
    {
        return new GeneratorStream(static function () use ($events): \Generator {
            foreach ($events instanceof Closure ? $events() : $events as $event) {
                yield self::format($event);
            }
        });
    }

    /** The wire form of one yielded item. */
    public static function format(mixed $event): string
    {
        if ($event instanceof ServerSentEvent) {
            return (string) $event;
        }

        return (string) new ServerSentEvent(\is_string($event) ? $event : \json_encode($event, \JSON_THROW_ON_ERROR | \JSON_UNESCAPED_SLASHES | \JSON_UNESCAPED_UNICODE));
    }
}
