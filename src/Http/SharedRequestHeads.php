<?php

declare(strict_types=1);

namespace Bobbin\Http;

/**
 * The request heads one server's connections parsed lately, by their bytes: a connection whose
 * client sends a head that another connection's client sent already (the same client program
 * with the same request: a load balancer's health check, an app's polling, a load generator)
 * takes the parse made then instead of making its own. Parsing is a pure function of the bytes
 * and the server's limits (one instance per server), and a RequestHead is immutable, so a head
 * serves any connection. What it saves is memory more than time: each keep-alive connection
 * keeps its last head for a repeat (RequestParser), and a thousand connections of one client
 * program now keep one head between them, not a thousand copies (~1.5 KB each).
 *
 * Unlike a connection's own last head it is looked up by hashing the bytes, so only on a
 * connection's first request and when its head changes.
 *
 * @internal one per server (ServerContext), used by its connections' parsers
 */
final class SharedRequestHeads
{
    /** Distinct heads kept; past this the lot is forgotten at once (no bookkeeping per lookup). */
    public const KEPT = 64;

    /** @var array<string, array{string, RequestHead}> by the head's bytes: those bytes (one copy for every connection) and their parse */
    public $byBytes = [];

    /** Keeps $head as the parse of $bytes. */
    public function keep(string $bytes, RequestHead $head): void
    {
        if (\count($this->byBytes) >= self::KEPT) {
            $this->byBytes = [];
        }
        $this->byBytes[$bytes] = [$bytes, $head];
    }
}
