<?php

declare(strict_types=1);

namespace Bobbin\Http;

use Psr\Http\Server\RequestHandlerInterface;
use Psr\Log\LoggerInterface;

/**
 * What every connection of one server reads and nobody changes: the configuration, the
 * application, the logger and the framing rules for responses.
 *
 * @internal built by Server
 */
final readonly class ServerContext
{
    /** `Server: …\r\n`, or empty when --server-header is empty. */
    public string $serverHeaderLine;
    public ResponseFramer $framer;

    public function __construct(
        public ServerConfig $config,
        public RequestHandlerInterface $handler,
        public LoggerInterface $logger,
    ) {
        $this->serverHeaderLine = $config->serverHeader === '' ? '' : 'Server: ' . $config->serverHeader . "\r\n";
        $this->framer = new ResponseFramer($this->serverHeaderLine);
    }
}
