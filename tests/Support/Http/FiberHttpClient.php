<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Http;

use Bobbin\Async\Async;
use Bobbin\Async\Future;
use PHPUnit\Framework\Assert;

/** A raw HTTP exchange from a non-blocking client in its own fiber, for in-process servers. */
final class FiberHttpClient
{
    /**
     * Sends $bytes to $address and resolves to everything the server sent until it closed.
     *
     * @return Future<string>
     */
    public static function exchange(string $address, string $bytes): Future
    {
        return Async::run(static function () use ($address, $bytes): string {
            $client = \stream_socket_client('tcp://' . $address, $code, $message, 5.0);
            Assert::assertNotFalse($client, "connect to $address: $message");
            \stream_set_blocking($client, false);
            \fwrite($client, $bytes);
            $response = '';
            while (true) {
                Async::awaitReadable($client, 10.0);
                $data = \fread($client, 65536);
                if ($data === '' || $data === false) {
                    break;
                }
                $response .= $data;
            }
            \fclose($client);

            return $response;
        });
    }
}
