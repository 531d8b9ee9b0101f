<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Nats;

/**
 * The checkout's private nats-server (scripts/nats), started on first use and left running for
 * the rest of the run; scripts/test stops it at the end.
 */
final class EmbeddedNats
{
    private static ?string $url = null;

    public static function url(): string
    {
        if (self::$url === null) {
            $url = \getenv('BOBBIN_TEST_NATS_URL');
            self::$url = \is_string($url) && $url !== '' ? $url : self::script('start', 'url');
        }

        return self::$url;
    }

    private static function script(string ...$commands): string
    {
        $output = '';
        foreach ($commands as $command) {
            $lines = [];
            \exec(\dirname(__DIR__, 3) . '/scripts/nats ' . $command . ' 2>/dev/null', $lines, $code);
            if ($code !== 0) {
                throw new \RuntimeException('scripts/nats ' . $command . ' failed');
            }
            $output = \trim(\implode("\n", $lines));
        }

        return $output;
    }
}
