<?php

declare(strict_types=1);

/**
 * A scripted fake MySQL 8 server for what MariaDB cannot show: caching_sha2_password's
 * exchanges, auth switches, a LOCAL INFILE request, protocol violations. Plays one scenario
 * for one client with blocking I/O, in its own process (FakeMysqlServer starts it).
 *
 *   php fake-mysql.php SCENARIO [UNIX_SOCKET_PATH]   prints "ready" once it listens (and "port N" for TCP)
 */

require \dirname(__DIR__, 3) . '/vendor/autoload.php';
Bobbin\Async\Async::installLoopDriver(); // docs/ASYNC.md: the autoloader leaves the loop alone

use Bobbin\Mysql\Internal\Authentication;
use Bobbin\Mysql\Internal\Wire;

$scenario = $argv[1] ?? '';
$unixPath = $argv[2] ?? null;
$server = $unixPath !== null ? \stream_socket_server('unix://' . $unixPath) : \stream_socket_server('tcp://127.0.0.1:0');
if ($server === false) {
    exit(1);
}
if ($unixPath === null) {
    $name = (string) \stream_socket_get_name($server, false);
    echo 'port ', \substr($name, \strrpos($name, ':') + 1), "\n";
} else {
    echo "ready\n";
}
\fflush(\STDOUT);
const PASSWORD = 'secret';

// garbage-then-good: the first client's first query is answered with garbage; the next
// connection is served as usual (the client must open a new one, never reuse the first).
for ($served = 0; $served < ($scenario === 'garbage-then-good' ? 2 : 1); $served++) {
    $client = @\stream_socket_accept($server, 30);
    if ($client === false) {
        exit(1);
    }
    serve($client, $served === 0 ? $scenario : 'default', $unixPath);
    \fclose($client);
}

/** @param resource $client */
function serve($client, string $scenario, ?string $unixPath): void
{
    $nonce = 'abcdefghij0123456789';

    $send = static function (string $payload, int $sequence) use ($client): void {
        \fwrite($client, \substr(\pack('V', \strlen($payload)), 0, 3) . \chr($sequence) . $payload);
    };
    /** @return array{string, int} payload and sequence number, or ['', -1] at the end of the stream */
    $receive = static function () use ($client): array {
        $head = \fread($client, 4);
        if ($head === false || \strlen($head) < 4) {
            return ['', -1];
        }
        $length = \unpack('V', \substr($head, 0, 3) . "\0")[1];
        $payload = '';
        while (\strlen($payload) < $length) {
            $chunk = \fread($client, $length - \strlen($payload));
            if ($chunk === false || $chunk === '') {
                return ['', -1];
            }
            $payload .= $chunk;
        }

        return [$payload, \ord($head[3])];
    };
    $ok = static fn (): string => "\x00\x00\x00\x02\x00\x00\x00";
    $error = static fn (int $code, string $state, string $message): string => "\xff" . \pack('v', $code) . '#' . $state . $message;

    $plugin = 'caching_sha2_password';
    $capabilities = 0x1 | 0x8 | 0x200 | 0x2000 | 0x8000 | 0x20000 | 0x80000 | 0x100000 | 0x200000 | 0x1000000;
    if ($scenario === 'bad-greeting') {
        $send("\x09" . "4.0\0", 0);
        return;
    }
    $greeting = "\x0a" . "8.0.36-fake\0" . \pack('V', 99) . \substr($nonce, 0, 8) . "\0" . \pack('v', $capabilities & 0xffff)
        . "\xff" . \pack('v', 2) . \pack('v', $capabilities >> 16) . \chr(21) . \str_repeat("\0", 10) . \substr($nonce, 8) . "\0" . $plugin . "\0";
    $send($greeting, 0);

    [$response, $sequence] = $receive();
    $offset = 32;
    $user = Wire::readNulString($response, $offset);
    $auth = (string) Wire::readLengthEncodedString($response, $offset);
    $next = $sequence + 1;

    $authenticated = false;
    switch ($scenario) {
        case 'sha2-fast':
            if ($auth === Authentication::cachingSha2(PASSWORD, $nonce)) {
                $send("\x01\x03", $next++);
                $authenticated = true;
            }
            break;
        case 'sha2-full-rsa':
        case 'sha2-full-unix':
            $send("\x01\x04", $next);
            [$answer, $sequence] = $receive();
            $next = $sequence + 1;
            if ($answer === "\x02") {
                $key = \openssl_pkey_new(['private_key_bits' => 2048]);
                $send("\x01" . \openssl_pkey_get_details($key)['key'], $next);
                [$encrypted, $sequence] = $receive();
                $next = $sequence + 1;
                \openssl_private_decrypt($encrypted, $plain, $key, \OPENSSL_PKCS1_OAEP_PADDING);
                $mask = \substr(\str_repeat($nonce, 2), 0, \strlen((string) $plain));
                $authenticated = ((string) $plain ^ $mask) === PASSWORD . "\0";
            } else {
                $authenticated = $answer === PASSWORD . "\0" && $unixPath !== null;
            }
            break;
        case 'auth-switch-native':
            $fresh = 'ZYXWVUTSRQPONMLKJIHG';
            $send("\xfe" . "mysql_native_password\0" . $fresh . "\0", $next);
            [$answer, $sequence] = $receive();
            $next = $sequence + 1;
            $authenticated = $answer === Authentication::nativePassword(PASSWORD, $fresh);
            break;
        case 'auth-switch-unsupported':
            $send("\xfe" . "auth_gssapi_client\0" . "realm\0", $next);
            $receive();
            return;
        default:
            $authenticated = $auth === Authentication::cachingSha2(PASSWORD, $nonce);
    }
    if (!$authenticated) {
        $send($error(1045, '28000', "Access denied for user '$user'@'localhost' (using password: YES)"), $next);
        return;
    }
    $send($ok(), $next);

    while (true) {
        [$command, $sequence] = $receive();
        if ($sequence < 0 || $command === "\x01") {
            return;
        }
        switch ($scenario) {
            case 'local-infile':
                $send("\xfb/etc/passwd", 1);
                [$file] = $receive();
                $send($file === '' ? "\x00\x00\x00\x02\x00\x00\x00" : $error(1105, 'HY000', 'the client sent a file'), 3);
                break;
            case 'garbage-then-good':
                // One column, and a definition that is no definition.
                $send("\x01", 1);
                $send("\xff\xfe garbage \x00\x01", 2);

                return;
            case 'bad-sequence':
                $send("\x01", 7);
                break;
            case 'close-mid-result':
                $send("\x01", 1);
                $send(Wire::lengthEncodedString('def') . "\0\0\0" . Wire::lengthEncodedString('a') . Wire::lengthEncodedString('a') . "\x0c" . \pack('vVCvC', 45, 10, 0xfd, 0, 0) . "\0\0", 2);
                $send("\x01x", 3);
                \fclose($client);
                return;
            default:
                // Any query: one column "ok" with the value "yes".
                $send("\x01", 1);
                $send(Wire::lengthEncodedString('def') . "\0\0\0" . Wire::lengthEncodedString('ok') . Wire::lengthEncodedString('ok') . "\x0c" . \pack('vVCvC', 45, 10, 0xfd, 0, 0) . "\0\0", 2);
                $send("\x03yes", 3);
                $send("\xfe\x00\x00\x02\x00\x00\x00", 4);
        }
    }
}
