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
        [$done, $error] = self::enableCrypto($stream, \STREAM_CRYPTO_METHOD_TLSv1_2_CLIENT | \STREAM_CRYPTO_METHOD_TLSv1_3_CLIENT, $deadline, $cancellation, $watcher);
        if ($done !== true) {
            $reason = \trim((string) \preg_replace('/^stream_socket_enable_crypto\(\):\s*/', '', $error));
            // Refused by the check (an unknown CA, a self-signed certificate, another host's
            // name): say how to pass it, and what the way around it costs.
            $refusedByTheCheck = $verifyPeer && \preg_match('/certificate verify failed|did not match expected/i', $reason) === 1;
            throw new TlsHandshakeException($refusedByTheCheck ? $reason . ' (' . TlsVerification::HINT . ')' : $reason);
        }
        $watcher?->noteTlsStarted();
    }

    /**
     * The server's side: a connection just accepted on a listener whose context carries the
     * certificate (local_cert, local_pk). Returns once TLS runs on it.
     *
     * @param resource $stream
     * @throws TlsHandshakeException|TimeoutException|CancelledException
     */
    public static function asServer(mixed $stream, float $deadline, ?Cancellation $cancellation = null, ?StreamWatcher $watcher = null): void
    {
        [$done, $error] = self::enableCrypto($stream, \STREAM_CRYPTO_METHOD_TLSv1_2_SERVER | \STREAM_CRYPTO_METHOD_TLSv1_3_SERVER, $deadline, $cancellation, $watcher);
        if ($done !== true) {
            throw new TlsHandshakeException(\trim((string) \preg_replace('/^stream_socket_enable_crypto\(\):\s*/', '', $error)) ?: 'the peer ended the handshake');
        }
        $watcher?->noteTlsStarted();
    }

    /**
     * stream_socket_enable_crypto() until it says yes or no: it returns 0 while the handshake
     * waits for the peer, and the fiber waits for the socket meanwhile.
     *
     * @param resource $stream
     * @return array{bool|int, string} its last answer and the warning it gave
     * @throws TimeoutException|CancelledException
     */
    private static function enableCrypto(mixed $stream, int $method, float $deadline, ?Cancellation $cancellation, ?StreamWatcher $watcher): array
    {
        $error = '';
        $capture = static function (int $type, string $message) use (&$error): bool {
            $error = $message;

            return true;
        };
        while (true) {
            \set_error_handler($capture);
            try {
                $done = \stream_socket_enable_crypto($stream, true, $method);
            } finally {
                \restore_error_handler();
            }
            if ($done !== 0) {
                return [$done, $error];
            }
            $timeout = \max(0.0, $deadline - \microtime(true));
            if ($watcher !== null) {
                $watcher->awaitReadable($timeout, $cancellation);
            } else {
                Async::awaitReadable($stream, $timeout, $cancellation);
            }
        }
    }
}
