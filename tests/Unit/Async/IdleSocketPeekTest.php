<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\IdleSocketPeek;
use PHPUnit\Framework\TestCase;

final class IdleSocketPeekTest extends TestCase
{
    public function testAQuietSocketHasNothingToSay(): void
    {
        [$ours, $theirs] = self::pair();

        self::assertNull((new IdleSocketPeek($ours))->firstByte());
        self::assertFalse((new IdleSocketPeek($ours))->hasArrived());
        \fclose($theirs);
    }

    public function testTheFirstByteIsSeenAndLeftToBeRead(): void
    {
        [$ours, $theirs] = self::pair();
        \fwrite($theirs, 'E-fatal');
        $peek = new IdleSocketPeek($ours);

        self::assertSame('E', $peek->firstByte());
        self::assertSame('E', $peek->firstByte());
        self::assertSame('E-fatal', \fread($ours, 100));
        self::assertNull($peek->firstByte());
    }

    public function testThePeerClosingIsTheEndOfTheStream(): void
    {
        [$ours, $theirs] = self::pair();
        $peek = new IdleSocketPeek($ours);
        \fclose($theirs);

        self::assertSame('', $peek->firstByte());
        self::assertTrue($peek->hasArrived());
    }

    public function testAStreamThatIsNoSocketFallsBackToAPoll(): void
    {
        $pipe = \popen('printf x', 'r');
        self::assertIsResource($pipe);
        \usleep(100_000);

        self::assertSame('?', (new IdleSocketPeek($pipe))->firstByte());
        \pclose($pipe);
    }

    /** @return array{resource, resource} */
    private static function pair(): array
    {
        $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, 0);
        self::assertNotFalse($pair);
        \stream_set_blocking($pair[0], false);

        return [$pair[0], $pair[1]];
    }
}
