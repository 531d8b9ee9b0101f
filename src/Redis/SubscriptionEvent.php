<?php

declare(strict_types=1);

namespace Bobbin\Redis;

/** What Subscriber::receive() returns: a Message, or MessagesMissed after a reconnect. */
interface SubscriptionEvent
{
}
