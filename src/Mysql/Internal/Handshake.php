<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Internal;

use Bobbin\Async\Cancellation;
use Bobbin\Mysql\ConnectionConfig;
use Bobbin\Mysql\Exception\ConnectException;
use Bobbin\Mysql\Exception\ProtocolException;
use Bobbin\Mysql\TlsMode;

/**
 * The connection phase: greeting, capability negotiation, TLS after an SSLRequest, and
 * authentication with plugin switches and caching_sha2_password's extra round trips.
 *
 * @internal
 */
final class Handshake
{
    /** What this client asks for whenever the server offers it. CLIENT_LOCAL_FILES never. */
    private const WANTED = Protocol::CLIENT_LONG_FLAG | Protocol::CLIENT_PROTOCOL_41 | Protocol::CLIENT_TRANSACTIONS
        | Protocol::CLIENT_SECURE_CONNECTION | Protocol::CLIENT_MULTI_RESULTS | Protocol::CLIENT_PS_MULTI_RESULTS
        | Protocol::CLIENT_PLUGIN_AUTH | Protocol::CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA | Protocol::CLIENT_CONNECT_ATTRS
        | Protocol::CLIENT_SESSION_TRACK | Protocol::CLIENT_DEPRECATE_EOF;

    /** @return array{ServerGreeting, int, int} the greeting, the capabilities and MariaDB capabilities in force */
    public static function perform(Transport $transport, ConnectionConfig $config, float $deadline, ?Cancellation $cancellation): array
    {
        $packet = $transport->nextPayload($deadline, $cancellation);
        if (($packet[0] ?? '') === "\xff") {
            throw ErrorFactory::forConnect(ServerError::parse($packet), $config->describe());
        }
        $greeting = ServerGreeting::parse($packet);
        if (($greeting->capabilities & Protocol::CLIENT_PROTOCOL_41) === 0) {
            throw new ConnectException(\sprintf('MySQL (%s) is too old: it does not speak protocol 4.1', $config->describe()));
        }
        $capabilities = self::WANTED & $greeting->capabilities;
        if ($config->database !== '') {
            $capabilities |= Protocol::CLIENT_CONNECT_WITH_DB;
        }
        if ($config->allowMultipleStatements) {
            $capabilities |= Protocol::CLIENT_MULTI_STATEMENTS;
        }
        $mariadb = $greeting->mariadbCapabilities & (Protocol::MARIADB_CLIENT_EXTENDED_METADATA | Protocol::MARIADB_CLIENT_CACHE_METADATA);

        $wantsTls = $config->tls === TlsMode::Required || ($config->tls === TlsMode::Preferred && !$transport->isUnixSocket);
        if ($wantsTls && ($greeting->capabilities & Protocol::CLIENT_SSL) !== 0) {
            $transport->send($transport->packets->frame(HandshakeResponse::sslRequest($capabilities, $mariadb)), $deadline, $cancellation);
            $transport->startTls($config, $deadline, $cancellation);
            $capabilities |= Protocol::CLIENT_SSL;
        } elseif ($config->tls === TlsMode::Required) {
            throw new ConnectException(\sprintf('MySQL (%s) does not offer TLS, and the settings require it', $config->describe()));
        }
        // Where the password itself may go: not over TLS that never checked who answers.
        $secure = $transport->isUnixSocket || ($transport->isEncrypted() && $config->verifiesTls());

        // A plugin this client does not speak may be switched away from: answer as native.
        $plugin = \in_array($greeting->authPlugin, [Authentication::NATIVE, Authentication::CACHING_SHA2], true)
            ? $greeting->authPlugin
            : Authentication::NATIVE;
        $nonce = $greeting->nonce;
        $transport->send($transport->packets->frame(HandshakeResponse::build(
            $capabilities,
            $mariadb,
            $config->user,
            Authentication::respond($plugin, $config->password, $nonce, $secure),
            $config->database,
            $plugin,
            $config->attributes,
        )), $deadline, $cancellation);

        $askedForKey = false;
        while (true) {
            $packet = $transport->nextPayload($deadline, $cancellation, true);
            switch ($packet[0] ?? '') {
                case "\x00":
                    return [$greeting, $capabilities, $mariadb];
                case "\xff":
                    throw ErrorFactory::forConnect(ServerError::parse($packet), $config->describe());
                case "\xfe":
                    // AuthSwitchRequest: another plugin, a fresh nonce.
                    $offset = 1;
                    $plugin = Wire::readNulString($packet, $offset);
                    $nonce = \rtrim(\substr($packet, $offset), "\0");
                    $transport->send($transport->packets->frame(Authentication::respond($plugin, $config->password, $nonce, $secure)), $deadline, $cancellation);
                    break;
                case "\x01":
                    $data = \substr($packet, 1);
                    if ($plugin !== Authentication::CACHING_SHA2) {
                        throw new ProtocolException(\sprintf('Unexpected extra authentication data for %s', $plugin));
                    }
                    if ($data === Authentication::FAST_AUTH_SUCCESS) {
                        break; // the OK follows
                    }
                    if ($data === Authentication::PERFORM_FULL_AUTHENTICATION && $secure) {
                        $transport->send($transport->packets->frame($config->password . "\0"), $deadline, $cancellation);
                        break;
                    }
                    if ($data === Authentication::PERFORM_FULL_AUTHENTICATION && $config->serverPublicKey === null) {
                        $askedForKey = true;
                        $transport->send($transport->packets->frame(Authentication::REQUEST_PUBLIC_KEY), $deadline, $cancellation);
                        break;
                    }
                    $key = $askedForKey ? $data : (string) $config->serverPublicKey;
                    $transport->send($transport->packets->frame(Authentication::encryptPassword($config->password, $nonce, $key)), $deadline, $cancellation);
                    break;
                default:
                    throw new ProtocolException(\sprintf('Unexpected packet during authentication (first byte 0x%02x)', \ord($packet[0] ?? "\0")));
            }
        }
    }
}
