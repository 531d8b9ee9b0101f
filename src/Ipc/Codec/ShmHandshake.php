<?php

declare(strict_types=1);

namespace Bobbin\Ipc\Codec;

use Bobbin\Ipc\IpcException;

/**
 * The control frames that set up a shared-memory channel over the unix socket (docs/IPC.md,
 * "Control frames"): SHM_OPEN from the client, the daemon's reply naming the segment (its two
 * eventfds travel beside it as ancillary data, which the connection receives), SHM_MAPPED once
 * the client mapped it.
 *
 * @internal
 */
final class ShmHandshake
{
    public const OP_SHM_OPEN = 1;
    public const OP_SHM_MAPPED = 2;
    /** Length word, opcode, status, three u32 sizes and the u16 name length. */
    private const REPLY_HEAD_BYTES = 20;

    /** SHM_OPEN: rings of $ringCapacity bytes per direction (0: the daemon's default). */
    public static function open(int $ringCapacity): string
    {
        return FrameCodec::controlFrame(\pack('CV', self::OP_SHM_OPEN, $ringCapacity));
    }

    /** SHM_MAPPED: the daemon may unlink the segment's name. */
    public static function mapped(): string
    {
        return FrameCodec::controlFrame(\pack('C', self::OP_SHM_MAPPED));
    }

    /**
     * The segment the daemon's reply offers.
     *
     * @throws IpcException when the reply is short, not a control frame answering SHM_OPEN, or
     *         a refusal
     */
    public static function offer(string $reply): SegmentOffer
    {
        if (\strlen($reply) < self::REPLY_HEAD_BYTES) {
            throw new IpcException('Bad shared-memory handshake reply');
        }
        /** @var array{word: int, op: int, status: int, req: int, resp: int, segment: int, nameLength: int} $r */
        $r = \unpack('Vword/Cop/Cstatus/Vreq/Vresp/Vsegment/vnameLength', $reply);
        if (($r['word'] & FrameCodec::CONTROL_FLAG) === 0 || $r['op'] !== self::OP_SHM_OPEN || $r['status'] !== 0) {
            throw new IpcException('The IPC daemon refused the shared-memory channel');
        }
        if ($r['nameLength'] === 0 || \strlen($reply) < self::REPLY_HEAD_BYTES + $r['nameLength']) {
            throw new IpcException('Bad shared-memory handshake reply');
        }

        return new SegmentOffer($r['req'], $r['resp'], $r['segment'], \substr($reply, self::REPLY_HEAD_BYTES, $r['nameLength']));
    }
}
