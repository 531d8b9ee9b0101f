<?php

declare(strict_types=1);

namespace Bobbin\Nats\Internal;

use Bobbin\Async\DeferredFuture;
use Bobbin\Async\EndOfTurnWriter;
use Bobbin\Nats\Exception\SubscriptionClosedException;
use Bobbin\Nats\Inbox;
use Bobbin\Nats\Message;

/**
 * Not Async\SharedReader/KeyedWaiters, because NATS genuinely differs: its Link has a reader
 * fiber of its own (subscriptions' messages and PINGs arrive unasked, so somebody reads all the
 * time), a token may take many replies (an Inbox), and a broken socket fails only the requests
 * whose bytes may have left, since the connection reconnects and the others are sent again.
 *
 * The connection's one inbox subscription ("_INBOX.<random>.*") and who waits on it: each request
 * and each Inbox has a token, the last token of the reply subject, and a reply is handed to the
 * one its subject names. Subscribed on the first request, not before.
 *
 * @internal
 */
final class ReplyRouter
{
    /** Subject prefix of the shared inbox subscription, '' until the first request. */
    private string $prefix = '';
    /** The inbox subscription's sid; 0 until the first request. */
    public int $sid = 0;
    private int $lastToken = 0;
    /** @var array<int, DeferredFuture<Message>|Inbox> requests and inboxes waiting for answers, by token */
    private array $waiting = [];

    public function isSubscribed(): bool
    {
        return $this->sid !== 0;
    }

    /** Starts the inbox subscription as $sid; the SUB command to send. */
    public function subscribe(int $sid, string $randomToken): string
    {
        $this->prefix = '_INBOX.' . $randomToken . '.';
        $this->sid = $sid;

        return $this->resubscribeCommand();
    }

    /** The SUB that sets the inbox up again after a reconnect ('' when there is none). */
    public function resubscribeCommand(): string
    {
        return $this->sid === 0 ? '' : Commands::subscribe($this->prefix . '*', $this->sid);
    }

    public function nextToken(): int
    {
        return ++$this->lastToken;
    }

    public function replySubject(int $token): string
    {
        return $this->prefix . $token;
    }

    /** @param DeferredFuture<Message>|Inbox $waiting */
    public function register(int $token, DeferredFuture|Inbox $waiting): void
    {
        $this->waiting[$token] = $waiting;
    }

    public function forget(int $token): void
    {
        unset($this->waiting[$token]);
    }

    /** Hands over a message of the inbox subscription to the request or inbox its subject names. */
    public function route(Message $message): void
    {
        $waiting = $this->waiting[(int) \substr($message->subject, \strlen($this->prefix))] ?? null;
        if ($waiting instanceof Inbox) {
            $waiting->deliver($message);
        } elseif ($waiting !== null && !$waiting->isComplete()) {
            $waiting->complete($message);
        }
    }

    /** The socket broke: requests whose bytes may have reached the server fail, inboxes that asked are interrupted. */
    public function interrupt(\Throwable $lost, EndOfTurnWriter $queue): void
    {
        foreach ($this->waiting as $token => $waiting) {
            if ($waiting instanceof Inbox) {
                if ($waiting->interruptOnReconnect) {
                    $waiting->interrupt($lost);
                }
            } elseif (!$queue->isUnsent($token)) {
                $waiting->fail($lost);
            }
        }
    }

    /** The connection is closed: every request fails and every inbox ends with $reason. */
    public function endAll(\Throwable $reason): void
    {
        $waiting = $this->waiting;
        $this->waiting = [];
        foreach ($waiting as $one) {
            $one instanceof Inbox ? $one->end($reason) : $one->fail($reason);
        }
    }

    /** Closes an inbox (Inbox::close()). */
    public function close(Inbox $inbox): void
    {
        unset($this->waiting[$inbox->token]);
        $inbox->end(new SubscriptionClosedException('The inbox was closed'));
    }

    public function count(): int
    {
        return \count($this->waiting);
    }
}
