<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Process;

use Bobbin\Process\FreshProcess;
use PHPUnit\Framework\TestCase;

/**
 * A program started by FreshProcess holds stdout, stderr and its channel (as stdin), and none of
 * the starting process's other descriptors: PHP opens sockets without O_CLOEXEC, so a plain
 * fork and exec would hand it a server's listening socket and connections.
 */
final class FreshProcessTest extends TestCase
{
    /** The program: tells over stdin (the channel) what each of its descriptors is (scandir()'s own is closed by then: skipped). */
    private const PROGRAM = 'foreach (scandir("/proc/self/fd") as $f) { if ($f === (string) (int) $f && ($t = @readlink("/proc/self/fd/$f")) !== false) { fwrite(STDIN, "$f $t\n"); } }';

    public function testTheProgramHoldsItsChannelAsStdinAndNoOtherSocket(): void
    {
        $fresh = FreshProcess::available() ?? self::markTestSkipped('FFI with close_range() is not available here');
        $listener = \stream_socket_server('tcp://127.0.0.1:0') ?: self::fail('no listener');
        $client = \stream_socket_client('tcp://' . \stream_socket_get_name($listener, false)) ?: self::fail('no client');
        $accepted = \stream_socket_accept($listener) ?: self::fail('no connection');
        [$mine, $theirs] = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP) ?: self::fail('no pair');
        $channel = 'socket:[' . ((\fstat($theirs) ?: self::fail('no fstat'))['ino']) . ']';

        $pid = $fresh->spawn($theirs, ['-n', '-r', self::PROGRAM], []);
        \fclose($theirs);
        \stream_set_timeout($mine, 10);
        $lines = \explode("\n", \trim((string) \stream_get_contents($mine)));
        \pcntl_waitpid($pid, $status);

        $descriptors = [];
        foreach ($lines as $line) {
            [$fd, $target] = \explode(' ', $line, 2) + [1 => ''];
            $descriptors[(int) $fd] = $target;
        }
        self::assertSame($channel, $descriptors[0] ?? null, 'The channel is not the program\'s stdin: ' . \implode(', ', $lines));
        $sockets = \array_filter($descriptors, static fn (string $target): bool => \str_starts_with($target, 'socket:'));
        self::assertSame([0 => $channel], $sockets, 'The program holds another socket of this process');
        self::assertSame([0, 1, 2], \array_keys($descriptors), 'The program holds a descriptor above 2');
        self::assertTrue(\pcntl_wifexited($status) && \pcntl_wexitstatus($status) === 0);
        \fclose($accepted);
        \fclose($client);
        \fclose($listener);
    }
}
