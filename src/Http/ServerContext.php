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
    public TrustedProxies $trustedProxies;
    public RequestBuilder $requestBuilder;
    public ResponseWriter $responseWriter;
    public Classic\ClassicCapture $classic;
    public RequestIds $requestIds;
    /** The heads the connections' parsers parsed lately, shared between them. */
    public SharedRequestHeads $requestHeads;
    public ?AccessLog $accessLog;
    /** --compression's transform of responses (null when off) */
    public ?Compression\ResponseCompression $compression;
    /**
     * The server parameters of the application file, as PHP-FPM has them for a front
     * controller: SCRIPT_FILENAME, SCRIPT_NAME, PHP_SELF, DOCUMENT_ROOT (none without one).
     *
     * @var array<string, string>
     */
    public array $scriptParams;

    /**
     * @param resource|null $accessLogStream where --access-log writes (by default stderr, or --access-log-file)
     * @throws \RuntimeException when --access-log-file cannot be opened
     */
    public function __construct(
        public ServerConfig $config,
        public RequestHandlerInterface $handler,
        public LoggerInterface $logger,
        public ServerMetrics $metrics,
        string $scriptFilename = '',
        mixed $accessLogStream = null,
    ) {
        $this->serverHeaderLine = $config->serverHeader === '' ? '' : 'Server: ' . $config->serverHeader . "\r\n";
        $this->framer = new ResponseFramer($this->serverHeaderLine);
        $this->trustedProxies = TrustedProxies::fromList($config->trustedProxies);
        $this->requestBuilder = new RequestBuilder($this->trustedProxies);
        $this->responseWriter = new ResponseWriter($this);
        $this->classic = new Classic\ClassicCapture($logger, $config->strayOutput === 'log');
        $this->requestIds = new RequestIds();
        $this->requestHeads = new SharedRequestHeads();
        $this->compression = $config->compression ? new Compression\ResponseCompression($config->compressionLevel, $config->compressionMinBytes) : null;
        $this->accessLog = match (true) {
            $config->accessLogFile !== '' && $accessLogStream === null => AccessLog::toFile($config->accessLogFile, $config->accessLogFormat === 'json'),
            $config->accessLog || $config->accessLogFile !== '' => new AccessLog($accessLogStream ?? \STDERR, $config->accessLogFormat === 'json'),
            default => null,
        };
        $script = $scriptFilename === '' ? false : \realpath($scriptFilename);
        $this->scriptParams = $script === false ? [] : [
            'SCRIPT_FILENAME' => $script,
            'SCRIPT_NAME' => '/' . \basename($script),
            'PHP_SELF' => '/' . \basename($script),
            'DOCUMENT_ROOT' => \dirname($script),
        ];
    }
}
