<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\StreamWatcher;
use PHPUnit\Framework\TestCase;

/** StreamWatcher::goneAfterEmptyRead(): when an empty read means the peer has gone. */
final class StreamWatcherEndOfStreamTest extends TestCase
{
    public function testAnEmptyReadOfAPlainStreamWhosePeerClosedMeansItHasGone(): void
    {
        [$watcher, $ours] = self::pairWithPeerClosed();

        self::assertSame('', \fread($ours, 10));
        self::assertTrue($watcher->goneAfterEmptyRead());
    }

    public function testAStreamWhosePeerIsStillThereHasNotGone(): void
    {
        [$ours, $theirs] = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, 0);
        \stream_set_blocking($ours, false);
        $watcher = new StreamWatcher($ours);

        self::assertSame('', \fread($ours, 10));
        self::assertFalse($watcher->goneAfterEmptyRead());
        \fclose($theirs);
    }

    public function testOnTlsItTakesTwoEmptyReadsInARow(): void
    {
        // OpenSSL's feof() can say "gone" while a request is arriving (a stale errno): a peer
        // that has really left is still gone at the next read.
        [$watcher, $ours] = self::pairWithPeerClosed();
        $watcher->noteTlsStarted();

        self::assertFalse($watcher->goneAfterEmptyRead());
        self::assertTrue($watcher->goneAfterEmptyRead());
    }

    public function testOnTlsBytesReadBetweenTwoEmptyReadsStartTheCountAgain(): void
    {
        [$watcher] = self::pairWithPeerClosed();
        $watcher->noteTlsStarted();

        self::assertFalse($watcher->goneAfterEmptyRead());
        $watcher->emptyReads = 0; // what the reader does when bytes come (Http\Connection)
        self::assertFalse($watcher->goneAfterEmptyRead());
    }

    /** @return array{StreamWatcher, resource} */
    private static function pairWithPeerClosed(): array
    {
        [$ours, $theirs] = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, 0);
        \stream_set_blocking($ours, false);
        \fclose($theirs);

        return [new StreamWatcher($ours), $ours];
    }
}
