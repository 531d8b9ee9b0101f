<?php

declare(strict_types=1);

namespace Bobbin\Http\Classic;

use Psr\Http\Message\ResponseInterface;
use Psr\Log\LoggerInterface;

/**
 * Around each request: what its code sends through PHP's own functions (echo, header(),
 * setcookie()) joins its response as PHP-FPM would send it (ClassicResponse::merge()); with
 * --stray-output=log, echoed output is logged and dropped instead.
 *
 * @internal one per server, used by its connections
 */
final class ClassicCapture
{
    public function __construct(
        private readonly LoggerInterface $logger,
        private readonly bool $logStrayOutput,
    ) {
    }

    /**
     * Starts capturing the current fiber's output for good (a connection's); finish() after each
     * request. Called per request: the return type is the analyser's (docs/ASYNC.md, Rules).
     *
     * @return ?CapturedOutput
     */
    public function begin()
    {
        return OutputCapture::claim();
    }

    /**
     * Called per request: the class types are the analyser's, not run-time checks (docs/ASYNC.md, Rules).
     *
     * @param ?ResponseInterface $response
     * @param ?CapturedOutput $output
     * @return ?ResponseInterface
     */
    public function finish($response, $output, string $method, string $target)
    {
        if (($output === null || $output->contents === '') && !HeaderCapture::$dirty) {
            return $response; // the usual request: no echo, no header()
        }
        $echoed = $output?->take() ?? '';
        $headerLines = HeaderCapture::take();
        if ($response === null || ($echoed === '' && $headerLines === [])) {
            return $response;
        }
        if ($echoed !== '' && $this->logStrayOutput) {
            $this->logger->warning('{method} {target} wrote {bytes} byte(s) of output, dropped (--stray-output=log): {start}', [
                'method' => $method, 'target' => $target, 'bytes' => \strlen($echoed), 'start' => \substr($echoed, 0, 200),
            ]);
            $echoed = '';
        }

        return ClassicResponse::merge($response, $headerLines, $echoed);
    }
}
