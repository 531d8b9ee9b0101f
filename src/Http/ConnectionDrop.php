<?php

declare(strict_types=1);

namespace Bobbin\Http;

/** Why the server closed a connection that the client had not closed. */
enum ConnectionDrop: string
{
    /** At the connection limit: the longest-idle keep-alive connection made room for a new one. */
    case IdleForRoom = 'idle-for-room';
    /** At the connection limit: a client sending or reading below --min-data-rate made room. */
    case SlowForRoom = 'slow-for-room';
    /** Sent its request head below --min-data-rate (slowloris). */
    case SlowHead = 'slow-head';
    /** Sent its request body below --min-data-rate. */
    case SlowBody = 'slow-body';
    /** Read its response below --min-data-rate. */
    case SlowRead = 'slow-read';
    case HeadTimeout = 'head-timeout';
    case BodyTimeout = 'body-timeout';
    case IdleTimeout = 'idle-timeout';
    case RequestTimeout = 'request-timeout';
    case WriteTimeout = 'write-timeout';

    public function describe(): string
    {
        return match ($this) {
            self::IdleForRoom => 'idle keep-alive connection(s) closed to make room',
            self::SlowForRoom => 'slow client(s) closed to make room',
            self::SlowHead => 'client(s) sending a request head below the minimum rate',
            self::SlowBody => 'client(s) sending a request body below the minimum rate',
            self::SlowRead => 'client(s) reading a response below the minimum rate',
            self::HeadTimeout => 'request head(s) not complete within --header-timeout',
            self::BodyTimeout => 'request bod(ies) not complete within --body-timeout',
            self::IdleTimeout => 'keep-alive connection(s) idle past --idle-timeout',
            self::RequestTimeout => 'request(s) still running at --request-timeout',
            self::WriteTimeout => 'response(s) stuck for --write-timeout',
        };
    }
}
