<?php

declare(strict_types=1);

namespace Bobbin\Async;

/**
 * Turns an open, non-blocking client socket into a TLS one without blocking the loop: PHP's
 * stream_socket_enable_crypto() returns 0 while the handshake waits for the server, and the
 * fiber waits for the socket meanwhile. The server's certificate and name are verified unless
 * the settings asked for unverified encryption by name (TlsVerification). The database and messaging clients call this after their own prelude
 * (MySQL's SSLRequest, NATS's INFO, Redis at once).
 */
final class TlsHandshake
{
    private function __construct()
    {
    }

    /**
     * @param resource $stream
     * @param string|null $caFile the CA bundle to verify against (null: the system's)
     * @param StreamWatcher|null $watcher the stream's watcher, if its owner keeps one: told TLS runs
     *
     * @throws TlsHandshakeException|TimeoutException|CancelledException
     */
    public static function asClient(
        mixed $stream,
        string $peerName,
        bool $verifyPeer,
        ?string $caFile,
        float $deadline,
        ?Cancellation $cancellation = null,
        ?StreamWatcher $watcher = null,
    ): void {
        $options = [
            'verify_peer' => $verifyPeer,
            'verify_peer_name' => $verifyPeer,
            'allow_self_signed' => !$verifyPeer,
            'peer_name' => $peerName,
            'SNI_enabled' => true,
        ];
        if ($caFile !== null) {
            $options['cafile'] = $caFile;
        }
        foreach ($options as $name => $value) {
            \stream_context_set_option($stream, 'ssl', $name, $value);
        }
        $error = '';
        $capture = static function (int $type, string $message) use (&$error): bool {
            $error = $message;

            return true;
        };
        while (true) {
            \set_error_handler($capture);
            try {
                $done = \stream_socket_enable_crypto($stream, true, \STREAM_CRYPTO_METHOD_TLSv1_2_CLIENT | \STREAM_CRYPTO_METHOD_TLSv1_3_CLIENT);
            } finally {
                \restore_error_handler();
            }
            if ($done !== 0) {
                break;
            }
            $timeout = \max(0.0, $deadline - \microtime(true));
            if ($watcher !== null) {
                $watcher->awaitReadable($timeout, $cancellation);
            } else {
                Async::awaitReadable($stream, $timeout, $cancellation);
            }
        }
        if ($done !== true) {
            $reason = \trim((string) \preg_replace('/^stream_socket_enable_crypto\(\):\s*/', '', $error));
            // Refused by the check (an unknown CA, a self-signed certificate, another host's
            // name): say how to pass it, and what the way around it costs.
            $refusedByTheCheck = $verifyPeer && \preg_match('/certificate verify failed|did not match expected/i', $reason) === 1;
            throw new TlsHandshakeException($refusedByTheCheck ? $reason . ' (' . TlsVerification::HINT . ')' : $reason);
        }
        $watcher?->noteTlsStarted();
    }
}
