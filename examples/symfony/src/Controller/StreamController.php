<?php

declare(strict_types=1);

namespace App\Controller;

use Bobbin\Async\Async;
use Bobbin\Async\CancelledException;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\HttpFoundation\StreamedJsonResponse;
use Symfony\Component\HttpFoundation\StreamedResponse;
use Symfony\Component\Routing\Attribute\Route;

/**
 * Streamed responses (tests/Integration/Frameworks/ExampleAppFeaturesTestCase): each event is
 * echoed and flushed, then the callback waits ?ms= before the next; with ?token= the way the
 * stream ended (completed, cancelled) is written to a file the test reads.
 */
final class StreamController
{
    #[Route('/stream/events', methods: ['GET'])]
    public function events(Request $request): StreamedResponse
    {
        [$count, $seconds, $token, $cancellation] = self::parameters($request);

        return new StreamedResponse(static function () use ($count, $seconds, $token, $cancellation): void {
            self::record($token, static function () use ($count, $seconds, $cancellation): void {
                for ($i = 1; $i <= $count; $i++) {
                    if ($i > 1) {
                        Async::delay($seconds, $cancellation);
                    }
                    echo "event: tick\ndata: event $i\n\n";
                    @\ob_flush(); // PHP-FPM's output buffer (Bobbin sends at the next wait regardless)
                    \flush();
                }
            });
        }, 200, ['Content-Type' => 'text/event-stream', 'Cache-Control' => 'no-cache', 'X-Accel-Buffering' => 'no']);
    }

    /**
     * The classic PHP server-sent-events loop: echo, flush, a blocking sleep (no wait on
     * Bobbin's loop): each event goes out at its flush() all the same.
     */
    #[Route('/stream/blocking', methods: ['GET'])]
    public function blocking(Request $request): StreamedResponse
    {
        [$count, $seconds] = self::parameters($request);

        return new StreamedResponse(static function () use ($count, $seconds): void {
            for ($i = 1; $i <= $count; $i++) {
                echo "data: event $i\n\n";
                @\ob_flush();
                \flush();
                \usleep((int) ($seconds * 1_000_000));
            }
        }, 200, ['Content-Type' => 'text/event-stream', 'Cache-Control' => 'no-cache', 'X-Accel-Buffering' => 'no']);
    }

    #[Route('/stream/json', methods: ['GET'])]
    public function json(Request $request): StreamedJsonResponse
    {
        [$count, $seconds, , $cancellation] = self::parameters($request);
        $items = static function () use ($count, $seconds, $cancellation): \Generator {
            for ($i = 1; $i <= $count; $i++) {
                if ($i > 1) {
                    // What was echoed so far leaves PHP-FPM's buffers (Bobbin sends at this wait).
                    @\ob_flush();
                    \flush();
                    Async::delay($seconds, $cancellation);
                }
                yield ['n' => $i];
            }
        };

        return new StreamedJsonResponse(['items' => $items()], headers: ['X-Accel-Buffering' => 'no']);
    }

    /** @return array{int, float, string, mixed} */
    private static function parameters(Request $request): array
    {
        return [
            (int) $request->query->get('count', '3'),
            (int) $request->query->get('ms', '300') / 1000,
            (string) \preg_replace('/\W/', '', (string) $request->query->get('token', '')),
            // Bobbin's cancellation of this request (null under PHP-FPM).
            $request->attributes->get('bobbin.cancellation'),
        ];
    }

    private static function record(string $token, \Closure $stream): void
    {
        $outcome = 'interrupted';
        try {
            $stream();
            $outcome = 'completed';
        } catch (CancelledException) {
            $outcome = 'cancelled';
        } finally {
            if ($token !== '') {
                \file_put_contents(\sys_get_temp_dir() . '/bobbin-stream-' . $token, $outcome);
            }
        }
    }
}
