<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

use Bobbin\Async\Async;
use Bobbin\Http\Classic\CapturedOutput;
use Bobbin\Http\Classic\ClassicResponse;
use Bobbin\Http\Classic\HeaderCapture;
use Bobbin\Http\Classic\OutputCapture;
use Closure;
use Psr\Log\LoggerInterface;

/**
 * The shared-state legacy loop (`bin/bobbin serve --legacy --legacy-shared-state SCRIPT`): a
 * script written for PHP-FPM's superglobals runs once per request, at the global scope
 * (bin/bobbin includes it there, see GlobalScopeHandoffException), one request at a time per
 * worker, in the same process as the requests before it. Around each run:
 *
 * - before: $_GET, $_POST, $_COOKIE, $_FILES, $_SERVER, $_REQUEST and php://input are the
 *   request's; the header list is empty and the response code 200; output is captured;
 * - after: the session is written and closed and its id forgotten; echo, header(),
 *   setcookie() and http_response_code() make the response; settings the script changed
 *   (ini_set(), the default time zone, the locale) are put back.
 *
 * What persists, as in any long-lived worker: global variables, static variables and
 * properties, constants, functions and classes (so `require_once` runs a file once per worker,
 * not once per request), open connections. exit() and die end the worker after their response
 * has gone out (the master starts another one).
 *
 * @internal behind LegacyGateway (--legacy-shared-state)
 */
final class LegacyLoop implements ScriptLoop
{
    private ?QueuedRequest $current = null;
    private ?CapturedOutput $output = null;
    /** @var array<string, string|null> */
    private readonly array $settings;
    private readonly string $timeZone;
    private readonly string|false $locale;

    /**
     * @param Closure(): int $onEnd the worker's clean-up once no request will come; returns its exit code
     * @param (Closure(string): void)|null $onScriptExit told when exit() or die ends the worker: it
     *        stops accepting, and the master replaces it at once, as no crash
     */
    public function __construct(
        private readonly string $script,
        private readonly LegacyGateway $gateway,
        private readonly LoggerInterface $logger,
        private readonly Closure $onEnd,
        private readonly ?Closure $onScriptExit = null,
    ) {
        $settings = \ini_get_all(null, false);
        $this->settings = \is_array($settings) ? $settings : [];
        $this->timeZone = \date_default_timezone_get();
        $this->locale = \setlocale(\LC_ALL, '0');
        SessionReset::isAvailable();
        // PHP-FPM runs a script from its own directory: relative includes find their files.
        @\chdir(\dirname($script));
    }

    /**
     * Why this PHP cannot run the legacy mode, or null when it can: header() and the session
     * reset need FFI (docs/LEGACY.md), and without them responses would lose their headers and
     * sessions could pass from one client to the next.
     */
    public static function unsupportedBecause(): ?string
    {
        if (!HeaderCapture::enable()) {
            return 'the legacy mode needs FFI (ffi.enable=preload or true, as PHP\'s CLI has by default) to keep the headers scripts set with header()';
        }
        if (\extension_loaded('session') && !SessionReset::isAvailable()) {
            return 'the legacy mode needs FFI to end each request\'s session';
        }

        return null;
    }

    public function script(): string
    {
        return $this->script;
    }

    /** Waits for the next request and sets the stage for it; false once the worker stops. */
    public function next(): bool
    {
        $item = $this->gateway->next();
        if ($item === null) {
            return false;
        }
        $this->current = $item;
        RequestStage::enter($item->request);
        $this->output = OutputCapture::begin();

        return true;
    }

    /** The script ran to its end: its output and headers become the response. */
    public function finish(): void
    {
        $this->respond(null);
    }

    /** The script threw: a 500 as PHP-FPM gives one, the output so far kept, the error logged. */
    public function fail(\Throwable $error): void
    {
        $request = $this->current?->request;
        $this->logger->error('The legacy script failed on {method} {target}: {error}', [
            'method' => $request?->getMethod(), 'target' => $request?->getRequestTarget(), 'error' => $error, 'exception' => $error,
        ]);
        $this->respond(500);
    }

    /**
     * For a shutdown function registered before the server's own: exit() or die in the script
     * ended the process; the request gets the response the script made so far, as under
     * PHP-FPM (a redirect is `header('Location: …'); exit;`), and the loop runs until it is out.
     */
    public function completeOnShutdown(): void
    {
        if ($this->current === null) {
            return;
        }
        $error = \error_get_last();
        $fatal = $error !== null && ($error['type'] & (\E_ERROR | \E_CORE_ERROR | \E_COMPILE_ERROR | \E_USER_ERROR)) !== 0;
        $request = $this->current->request;
        if ($fatal) {
            $redeclared = \preg_match('/^Cannot (re)?declare /', $error['message']) === 1;
            $this->logger->critical('The legacy script ended its worker on {method} {target}: {message} in {file}:{line}{hint}', [
                'method' => $request->getMethod(), 'target' => $request->getRequestTarget(), 'message' => $error['message'],
                'file' => $error['file'], 'line' => $error['line'],
                'hint' => $redeclared ? '; a worker runs the script again and again, so functions and classes belong in files loaded with require_once (docs/LEGACY.md)' : '',
            ]);
        } elseif ($this->onScriptExit !== null) {
            ($this->onScriptExit)('the script called exit() or die on ' . $request->getMethod() . ' ' . $request->getRequestTarget());
        }
        $this->respond($fatal ? 500 : null);
        // Let the connection's fiber write it before the process is gone.
        Async::delay(0.0);
        Async::delay(0.01);
    }

    /** No request will come any more: the worker's clean-up; returns its exit code. */
    public function end(): int
    {
        InputStream::withdraw();

        return ($this->onEnd)();
    }

    private function respond(?int $status): void
    {
        if ($this->current === null) {
            return;
        }
        $deferred = $this->current->response;
        $this->current = null;
        $echoed = OutputCapture::end($this->output);
        $this->output = null;
        SessionReset::afterRequest();
        $code = \http_response_code();
        $response = ClassicResponse::fromScript(HeaderCapture::take(), \is_int($code) ? $code : false, $echoed);
        if ($status !== null) {
            $response = $response->withStatus($status);
        }
        InputStream::withdraw();
        $this->restoreSettings();
        $deferred->complete($response);
    }

    private function restoreSettings(): void
    {
        $now = \ini_get_all(null, false);
        if (\is_array($now) && $now !== $this->settings) {
            foreach ($now as $name => $value) {
                $before = $this->settings[$name] ?? null;
                if ($before !== $value) {
                    // The value before the script, which may be the server's own (memory_limit).
                    $before === null ? \ini_restore($name) : @\ini_set($name, $before);
                }
            }
        }
        if (\date_default_timezone_get() !== $this->timeZone) {
            \date_default_timezone_set($this->timeZone);
        }
        if ($this->locale !== false && \setlocale(\LC_ALL, '0') !== $this->locale) {
            \setlocale(\LC_ALL, $this->locale);
        }
    }
}
