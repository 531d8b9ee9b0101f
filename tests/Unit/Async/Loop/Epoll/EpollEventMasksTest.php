<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async\Loop\Epoll;

use Bobbin\Async\Loop\EpollPoller;
use Bobbin\Async\Loop\LinuxEpoll;
use PHPUnit\Framework\TestCase;

/** EpollPoller writes epoll's event bits as numbers (cheaper per event): they must be LinuxEpoll's. */
final class EpollEventMasksTest extends TestCase
{
    public function testThePollersEventMasksAreTheBitsLinuxEpollNames(): void
    {
        $poller = new \ReflectionClass(EpollPoller::class);

        self::assertSame(LinuxEpoll::IN, $poller->getConstant('READ'));
        self::assertSame(LinuxEpoll::OUT, $poller->getConstant('WRITE'));
        self::assertSame(LinuxEpoll::IN | LinuxEpoll::ERR | LinuxEpoll::HUP, $poller->getConstant('READ_READY'));
        self::assertSame(LinuxEpoll::OUT | LinuxEpoll::ERR | LinuxEpoll::HUP, $poller->getConstant('WRITE_READY'));
    }
}
