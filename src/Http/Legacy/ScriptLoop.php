<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

/**
 * What bin/bobbin's global scope drives in a legacy-mode process:
 *
 *     while ($loop->next()) { try { include $loop->script(); $loop->finish(); } catch (\Throwable $e) { $loop->fail($e); } }
 *     exit($loop->end());
 *
 * IsolatedLegacyLoop (the default: a fresh process per request) and LegacyLoop
 * (--legacy-shared-state: one process runs request after request) implement it.
 *
 * @internal between LegacyGateway and its script loops
 */
interface ScriptLoop
{
    /** The script's absolute path. */
    public function script(): string;

    /** Sets the stage for the next request's script; false once no request will come. */
    public function next(): bool;

    /** The script ran to its end. */
    public function finish(): void;

    /** The script threw $error. */
    public function fail(\Throwable $error): void;

    /** No request will come any more: the process's clean-up; returns its exit code. */
    public function end(): int;
}
