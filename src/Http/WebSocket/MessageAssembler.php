<?php

declare(strict_types=1);

namespace Bobbin\Http\WebSocket;

/**
 * Data frames into messages (§5.4): a message starts with a text or binary frame and goes on
 * with continuation frames until one is final; control frames may come between, data frames
 * of another message may not. Text messages must be valid UTF-8 (§8.1, 1007); a message over
 * the size limit ends the connection (1009). A compressed message (permessage-deflate) is
 * inflated once whole, its limit applied to the inflated size.
 *
 * @internal
 */
final class MessageAssembler
{
    private ?Opcode $type = null;
    private string $parts = '';
    private bool $compressed = false;

    public function __construct(private readonly int $maxMessage)
    {
    }

    /**
     * @return Message|null the message this data frame completes
     * @throws ProtocolViolation
     */
    public function add(Frame $frame): ?Message
    {
        if ($frame->opcode === Opcode::Continuation) {
            if ($this->type === null) {
                throw new ProtocolViolation(1002, 'a continuation frame with no message to continue');
            }
        } elseif ($this->type !== null) {
            throw new ProtocolViolation(1002, 'a new message began before the last one ended');
        } else {
            $this->type = $frame->opcode;
            $this->compressed = $frame->compressed;
        }
        if (\strlen($this->parts) + \strlen($frame->payload) > $this->maxMessage) {
            throw new ProtocolViolation(1009, \sprintf('a message over the limit of %d bytes', $this->maxMessage));
        }
        $this->parts .= $frame->payload;
        if (!$frame->final) {
            return null;
        }
        $binary = $this->type === Opcode::Binary;
        $data = $this->parts;
        $this->type = null;
        $this->parts = '';
        if ($this->compressed) {
            $this->compressed = false;
            $data = PerMessageDeflate::inflate($data, $this->maxMessage);
        }
        if (!$binary && \preg_match('//u', $data) !== 1) {
            throw new ProtocolViolation(1007, 'a text message that is not valid UTF-8');
        }

        return new Message($data, $binary);
    }
}
