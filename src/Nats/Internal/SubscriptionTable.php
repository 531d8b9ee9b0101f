<?php

declare(strict_types=1);

namespace Bobbin\Nats\Internal;

use Bobbin\Nats\Exception\NatsException;
use Bobbin\Nats\Exception\SlowConsumerException;
use Bobbin\Nats\Exception\SubscriptionClosedException;
use Bobbin\Nats\Message;
use Bobbin\Nats\Subscription;
use Closure;

/**
 * The subscriptions of a connection by sid: hands each message to its own, ends one that reached
 * its auto-unsubscribe limit, and writes the SUBs (with what is left of each limit) that set them
 * all up again after a reconnect.
 *
 * @internal
 */
final class SubscriptionTable
{
    /** @var array<int, Subscription> by sid */
    private array $bySid = [];
    private int $lastSid = 0;
    /** @var array<int, true> sids of subscriptions being drained (UNSUB sent, PONG awaited) */
    private array $draining = [];
    /** @var Closure(NatsException): void */
    private Closure $onError;

    public function __construct()
    {
        $this->onError = static function (NatsException $error): void {
        };
    }

    /** A sid for a new subscription (the inbox subscription takes one too). */
    public function newSid(): int
    {
        return ++$this->lastSid;
    }

    public function add(Subscription $subscription): void
    {
        $this->bySid[$subscription->sid] = $subscription;
    }

    public function has(int $sid): bool
    {
        return isset($this->bySid[$sid]);
    }

    public function remove(int $sid): void
    {
        unset($this->bySid[$sid], $this->draining[$sid]);
    }

    /** While drained, a subscription is still routed but not subscribed again by a reconnect. */
    public function startDraining(int $sid): void
    {
        $this->draining[$sid] = true;
    }

    /** @param Closure(NatsException): void $handler told when a subscription starts dropping messages */
    public function onError(Closure $handler): void
    {
        $this->onError = $handler;
    }

    /** Hands a message to its subscription (no callback parameter: each object-typed parameter costs every message a type check). */
    public function deliver(Message $message): void
    {
        $subscription = $this->bySid[$message->sid] ?? null;
        if ($subscription === null) {
            return; // delivered before the server saw our UNSUB
        }
        if (!$subscription->deliver($message) && $subscription->startedDropping()) {
            ($this->onError)(new SlowConsumerException(\sprintf(
                'The subscription to %s cannot keep up: it holds %d unread messages and drops new ones',
                $subscription->subject,
                $subscription->pending(),
            )));
        }
        if ($subscription->max !== null && $subscription->delivered >= $subscription->max) {
            unset($this->bySid[$message->sid]);
            $subscription->end(new SubscriptionClosedException(\sprintf('The subscription to %s reached its limit of %d messages', $subscription->subject, $subscription->max)));
        }
    }

    /** After a reconnect, before anything else queued: every subscription again, with what is left of its limit. */
    public function resubscribeCommands(): string
    {
        $commands = '';
        foreach ($this->bySid as $sid => $subscription) {
            if (isset($this->draining[$sid])) {
                continue;
            }
            $commands .= Commands::subscribe($subscription->subject, $sid, $subscription->queueGroup);
            if ($subscription->max !== null) {
                $commands .= Commands::unsubscribe($sid, $subscription->max - $subscription->delivered);
                $subscription->max -= $subscription->delivered;
                $subscription->delivered = 0;
            }
        }

        return $commands;
    }

    public function endAll(\Throwable $reason): void
    {
        $subscriptions = $this->bySid;
        $this->bySid = [];
        foreach ($subscriptions as $subscription) {
            $subscription->end($reason);
        }
    }

    public function count(): int
    {
        return \count($this->bySid);
    }

    /** Messages dropped by all subscriptions (slow consumers). */
    public function dropped(): int
    {
        $dropped = 0;
        foreach ($this->bySid as $subscription) {
            $dropped += $subscription->dropped();
        }

        return $dropped;
    }
}
