<?php

declare(strict_types=1);

namespace Bobbin\Http;

use Bobbin\Async\Async;
use Bobbin\Async\TimeoutException;
use Bobbin\Async\TlsHandshake;
use Bobbin\Async\TlsHandshakeException;

/**
 * HTTPS on the server's own listener (--tls-cert, --tls-key): the certificate goes into the
 * listener's context, and each accepted connection is handshaken in a fiber of its own, non-
 * blocking, before it is served — a client that stalls its handshake holds its own fiber up to
 * --header-timeout and nothing else. TLS 1.2 and 1.3 only; ALPN offers http/1.1.
 *
 * Each worker reads the files when it starts, so a reload (SIGHUP) serves renewed certificates:
 * new workers take them, the old ones finish with the old.
 *
 * @internal
 */
final class TlsTermination
{
    private const PLAIN_HTTP_REFUSED = "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: 55\r\nConnection: close\r\n\r\nThis port speaks HTTPS: the request came in plain HTTP\n";

    private function __construct(
        private readonly string $certificateFile,
        private readonly string $keyFile,
        private readonly float $handshakeTimeout,
    ) {
    }

    /**
     * @return self|null null without --tls-cert
     * @throws ServerStartException when the files cannot be read or do not belong together
     */
    public static function fromConfig(ServerConfig $config): ?self
    {
        if ($config->tlsCert === '') {
            return null;
        }
        $keyFile = $config->tlsKey !== '' ? $config->tlsKey : $config->tlsCert; // one PEM may hold both
        foreach (['--tls-cert' => $config->tlsCert, '--tls-key' => $keyFile] as $option => $file) {
            if (!\is_file($file) || !\is_readable($file)) {
                throw new ServerStartException(\sprintf('%s: cannot read %s', $option, $file));
            }
        }
        $certificate = @\openssl_x509_read((string) \file_get_contents($config->tlsCert));
        if ($certificate === false) {
            throw new ServerStartException(\sprintf('--tls-cert: %s holds no PEM certificate', $config->tlsCert));
        }
        $key = @\openssl_pkey_get_private((string) \file_get_contents($keyFile));
        if ($key === false) {
            throw new ServerStartException(\sprintf('--tls-key: %s holds no PEM private key (an encrypted key is not supported)', $keyFile));
        }
        if (!\openssl_x509_check_private_key($certificate, $key)) {
            throw new ServerStartException(\sprintf('--tls-key: the key in %s does not belong to the certificate in %s', $keyFile, $config->tlsCert));
        }

        return new self($config->tlsCert, $keyFile, $config->headerTimeout);
    }

    /**
     * The listener's context carries the certificate: accepted connections inherit it.
     *
     * @param resource $listener
     */
    public function applyTo($listener): void
    {
        $options = [
            'local_cert' => $this->certificateFile,
            'local_pk' => $this->keyFile,
            'verify_peer' => false, // no client certificates
            'allow_self_signed' => true,
            'disable_compression' => true, // CRIME
            'honor_cipher_order' => true,
            'alpn_protocols' => 'http/1.1',
        ];
        foreach ($options as $name => $value) {
            \stream_context_set_option($listener, 'ssl', $name, $value);
        }
    }

    /**
     * Handshakes a connection just accepted; false (and the socket closed) when the client did
     * not complete it in time or spoke something else (plain HTTP to the HTTPS port).
     *
     * @param resource $socket non-blocking
     */
    public function handshake($socket): bool
    {
        $deadline = \microtime(true) + $this->handshakeTimeout;
        try {
            Async::awaitReadable($socket, $this->handshakeTimeout);
            // Every TLS connection opens with a handshake record (content type 22); a request
            // line in clear is a client that forgot the s of https: tell it, as nginx does.
            $first = @\stream_socket_recvfrom($socket, 1, \STREAM_PEEK);
            if ($first !== "\x16") {
                if (\is_string($first) && $first !== '') {
                    @\fwrite($socket, self::PLAIN_HTTP_REFUSED);
                }
                \fclose($socket);

                return false;
            }
            TlsHandshake::asServer($socket, $deadline);

            return true;
        } catch (TlsHandshakeException | TimeoutException) {
            \fclose($socket);

            return false;
        }
    }

    /**
     * Runs $serve in a fiber of its own once $socket is handshaken.
     *
     * @param resource $socket
     * @param \Closure(): void $serve
     */
    public function acceptThen($socket, \Closure $serve): void
    {
        Async::run(function () use ($socket, $serve): void {
            if ($this->handshake($socket)) {
                $serve();
            }
        })->ignore();
    }
}
