<?php

declare(strict_types=1);

namespace Bobbin\Bench\Server;

/** A running HTTP server under measurement. */
interface Server
{
    /** Short label used in tables, e.g. "bobbin" or "fpm-persistent c=16". */
    public function name(): string;

    /** http://127.0.0.1:PORT without a trailing slash. */
    public function baseUrl(): string;

    /** @return list<int> processes whose descendants (and themselves) make up the server */
    public function rootPids(): array;

    /** The command that started it, for the report. */
    public function command(): string;

    public function stop(): void;
}
