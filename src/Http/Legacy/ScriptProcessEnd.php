<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

use Bobbin\Http\Classic\ClassicResponse;

/**
 * How a script's process ends (the isolated legacy mode): however the script stops — at its
 * end, exit(), die, an uncaught exception, a fatal error — PHP's shutdown runs the script's own
 * shutdown functions first, as under PHP-FPM; then this, the last one, destroys the objects the
 * script left in globals (their destructors run, newest first, as PHP does), flushes the
 * script's output buffers, writes and closes its session, sends the response to the parent
 * (ScriptResponseFrame) and ends the process with _exit(): PHP's own destruction of every
 * object never runs here, since most of them are the parent's (its loop, its connections, the
 * suspended fibers whose finally blocks must not run in a copy of the process).
 *
 * If the shutdown functions are cut short (exit() or a fatal error inside one), a guard object
 * in the globals, destroyed when PHP destroys them, ends the process the same way.
 *
 * @internal created by IsolatedLegacyLoop in the child
 */
final class ScriptProcessEnd
{
    private const FATAL = \E_ERROR | \E_PARSE | \E_CORE_ERROR | \E_COMPILE_ERROR | \E_USER_ERROR | \E_RECOVERABLE_ERROR;
    private const RESERVE_BYTES = 1 << 20;
    /** Held back until the end, so an exhausted memory_limit still leaves room to answer. */
    private ?string $reserve = null; // @phpstan-ignore property.onlyWritten (its point is the memory it holds)
    private bool $ending = false;
    private bool $responding = false;
    /** Whether a flush() sent the status, the headers and output already (the end sends the rest). */
    private bool $streaming = false;
    /** @var list<array-key> */
    private array $globalsBefore = [];

    /**
     * @param resource $socket the child's end of the pair to the parent (blocking)
     * @param string $reserve memory held until the end, made by the parent (RESERVE_BYTES) and
     *                        no longer referenced by it in this process: freeing it here makes
     *                        room without this process ever writing its pages
     */
    public function __construct(private $socket, string $reserve)
    {
        $this->reserve = $reserve;
    }

    /**
     * The reserve, made once in the parent: a copy-on-write page the child never writes costs it
     * nothing, where a megabyte made in each child cost 256 page faults per request.
     */
    public static function makeReserve(): string
    {
        return \str_repeat("\0", self::RESERVE_BYTES);
    }

    /** Before the script: registers the end behind every shutdown function the script will register. */
    public function arm(): void
    {
        \register_shutdown_function(function (): void {
            // Registered while the shutdown functions run: it comes after the script's own.
            \register_shutdown_function($this->end(...));
        });
        $GLOBALS['__bobbinScriptEnd'] = new ScriptEndGuard($this->end(...));
        $this->globalsBefore = \array_keys($GLOBALS);
    }

    public function end(): never
    {
        $this->reserve = null;
        if (!$this->ending) {
            $this->ending = true;
            $this->destroyScriptGlobals();
        }
        $this->respond();
    }

    private function destroyScriptGlobals(): void
    {
        $names = \array_diff(\array_keys($GLOBALS), $this->globalsBefore);
        foreach (\array_reverse($names) as $name) {
            try {
                unset($GLOBALS[$name]);
            } catch (\Throwable) { // @phpstan-ignore catch.neverThrown (the destructor unset() runs may throw)
                // a destructor's exception: PHP would report it and go on destroying
            }
        }
    }

    /**
     * The script called flush(): its output so far goes to the parent now — with the status and
     * headers the first time (PHP considers them sent from the first output on, as under
     * PHP-FPM) — and the end sends only what follows.
     */
    public function flush(): void
    {
        if ($this->responding) {
            return;
        }
        $body = ChildProcessCalls::drainStdout();
        if ($this->streaming && $body === '') {
            return;
        }
        $frame = $this->streaming
            ? new ScriptResponseFrame(0, [], $body, '', true)
            : $this->firstFrame($body, '', true);
        $this->streaming = true;
        $this->send($frame);
    }

    private function respond(): never
    {
        if ($this->responding) {
            ChildProcessCalls::exitNow(70); // failed while answering: the parent answers 500
        }
        $this->responding = true;
        $error = \error_get_last();
        $fatal = $error !== null && ($error['type'] & self::FATAL) !== 0
            ? \sprintf('%s in %s:%d', $error['message'], $error['file'], $error['line'])
            : '';
        while (\ob_get_level() > 0 && @\ob_end_flush()) {
            // what the script buffered is its output, as at the end of a PHP-FPM request
        }
        if (\extension_loaded('session') && \session_status() === \PHP_SESSION_ACTIVE) {
            @\session_write_close();
        }
        $body = ChildProcessCalls::takeStdout();
        $this->send($this->streaming ? new ScriptResponseFrame(0, [], $body, $fatal) : $this->firstFrame($body, $fatal, false));
        ChildProcessCalls::exitNow(0);
    }

    private function firstFrame(string $body, string $fatal, bool $more): ScriptResponseFrame
    {
        $code = \http_response_code();
        $status = \is_int($code) ? $code : 200;
        if ($fatal !== '' && $status === 200 && !self::displaysErrors()) {
            $status = 500; // PHP's rule for a fatal error (php_error_cb) where no error is displayed
        }
        // The list as it is: once output has gone out, PHP refuses to change it (header_remove()).
        $response = ClassicResponse::fromScript(\headers_list(), $status, $body);
        $lines = [];
        foreach ($response->getHeaders() as $name => $values) {
            foreach ($values as $value) {
                $lines[] = $name . ': ' . $value;
            }
        }

        return new ScriptResponseFrame($response->getStatusCode(), $lines, $body, $fatal, $more);
    }

    private function send(ScriptResponseFrame $frame): void
    {
        $bytes = $frame->encode();
        \stream_set_blocking($this->socket, true);
        for ($written = 0, $length = \strlen($bytes); $written < $length; $written += $sent) {
            $sent = @\fwrite($this->socket, \substr($bytes, $written, 1 << 20));
            if ($sent === false || $sent === 0) {
                break; // the parent is gone
            }
        }
    }

    private static function displaysErrors(): bool
    {
        $value = \strtolower(\trim((string) \ini_get('display_errors')));

        return !\in_array($value, ['', '0', 'off', 'no', 'false', 'none'], true);
    }
}
