<?php

declare(strict_types=1);

namespace Bobbin\Http;

use Bobbin\Platform\ByteSize;
/**
 * Everything one HTTP server (one worker) needs to know, validated once at start. Shared by
 * the `serve` command and the master process, so both read options the same way.
 */
final readonly class ServerConfig
{
    /**
     * Option name (as on the command line) => [property, type, default, help]. The single
     * source for fromArray(), the CLI's --help and the environment-variable names.
     *
     * @var array<string, array{string, string, int|float|bool|string, string}> type list: repeatable
     */
    public const OPTIONS = [
        'listen' => ['listen', 'string', '127.0.0.1:8080', 'HOST:PORT or unix:/path.sock to listen on'],
        'backlog' => ['backlog', 'int', 1024, 'listen queue length'],
        'max-request-line-bytes' => ['maxRequestLineBytes', 'size', 8192, 'longest request line (414 above it)'],
        'max-header-bytes' => ['maxHeaderBytes', 'size', 16384, 'largest request head incl. request line (431 above it)'],
        'max-header-count' => ['maxHeaderCount', 'int', 100, 'most header fields in a request (431 above it)'],
        'max-body-bytes' => ['maxBodyBytes', 'size', 10485760, 'largest request body in bytes, or with a unit: 32M (413 above it)'],
        'header-timeout' => ['headerTimeout', 'float', 10.0, 'seconds to receive a request head (408 after it)'],
        'idle-timeout' => ['idleTimeout', 'float', 30.0, 'seconds a keep-alive connection may stay idle'],
        'body-timeout' => ['bodyTimeout', 'float', 60.0, 'seconds to receive a request body (408 after it)'],
        'request-timeout' => ['requestTimeout', 'float', 30.0, 'seconds the application may take (503 after it)'],
        'write-timeout' => ['writeTimeout', 'float', 30.0, 'seconds a client may stall reading a response before it is dropped'],
        'max-requests-per-connection' => ['maxRequestsPerConnection', 'int', 10000, 'requests on one connection before it is closed (0: no limit)'],
        'max-connections' => ['maxConnections', 'int', 0, 'concurrent connections of one worker (0: as many as the loop driver and the open-files limit allow); at the limit an idle or slow connection makes room for a new one'],
        'min-data-rate' => ['minDataRate', 'int', 256, 'bytes per second a client must at least send its request or read its response at, measured over --data-rate-window (0: no minimum)'],
        'data-rate-window' => ['dataRateWindow', 'float', 5.0, 'seconds over which --min-data-rate is measured'],
        'drain-timeout' => ['drainTimeout', 'float', 10.0, 'seconds a graceful stop waits for in-flight requests'],
        'access-log' => ['accessLog', 'bool', false, 'write a line per request to stderr (docs/HTTP.md)'],
        'access-log-file' => ['accessLogFile', 'string', '', 'write the access log to this file instead of stderr (implies --access-log); each worker appends to it and reopens it on SIGUSR1, for logrotate (docs/DEPLOY.md)'],
        'access-log-format' => ['accessLogFormat', 'string', 'common', 'common (the common log format, then duration and request id) or json (one JSON object per line)'],
        'server-header' => ['serverHeader', 'string', 'Bobbin', 'value of the Server response header (empty: none)'],
        'stray-output' => ['strayOutput', 'string', 'body', 'what a request\'s echo, print or var_dump becomes: body (before the response body, as PHP-FPM sends it) or log (logged and dropped)'],
        'debug-errors' => ['debugErrors', 'bool', false, 'a 500 from an exception shows its chain and stack traces to the client (development only; by default a 500 says nothing but its status)'],
        'trusted-proxies' => ['trustedProxies', 'string', '', 'comma-separated addresses or CIDR ranges of proxies whose X-Forwarded-For and X-Forwarded-Proto are believed (empty: none)'],
        'tls-cert' => ['tlsCert', 'string', '', 'PEM file of the certificate (chain) to serve HTTPS with on --listen (TLS 1.2 and 1.3, ALPN http/1.1; each worker reads it at start, so a reload serves a renewed one; docs/HTTP.md)'],
        'tls-key' => ['tlsKey', 'string', '', 'PEM file of --tls-cert\'s private key, unencrypted (default: the key in the --tls-cert file)'],
        'static' => ['static', 'list', '', 'serve the files of DIR for GET and HEAD before the application, under the URL prefix PREFIX (default /): [PREFIX=]DIR, repeatable (environment and config file: comma-separated); no .php file, directory listing or path out of DIR is ever served (docs/HTTP.md, Static files)'],
        'static-dotfiles' => ['staticDotfiles', 'bool', false, 'with --static: also serve files whose path has a segment starting with "." (.well-known is always served; by default the others get 404)'],
        'compression' => ['compression', 'bool', false, 'gzip responses of compressible types (text, JSON, JavaScript, XML, SVG) above --compression-min-bytes for clients that accept it (docs/HTTP.md, Compression)'],
        'compression-level' => ['compressionLevel', 'int', 1, 'with --compression: zlib level, 1 (fastest; the default, as nginx\'s) to 9 (smallest); docs/HTTP.md, Compression, has the measured trade'],
        'compression-min-bytes' => ['compressionMinBytes', 'size', 1024, 'with --compression: bodies of a known size below this are sent as they are'],
    ];

    public function __construct(
        public string $listen = '127.0.0.1:8080',
        public int $backlog = 1024,
        public int $maxRequestLineBytes = 8192,
        public int $maxHeaderBytes = 16384,
        public int $maxHeaderCount = 100,
        public int $maxBodyBytes = 10485760,
        public float $headerTimeout = 10.0,
        public float $idleTimeout = 30.0,
        public float $bodyTimeout = 60.0,
        public float $requestTimeout = 30.0,
        public float $writeTimeout = 30.0,
        public int $maxRequestsPerConnection = 10000,
        public int $maxConnections = 0,
        public int $minDataRate = 256,
        public float $dataRateWindow = 5.0,
        public float $drainTimeout = 10.0,
        public bool $accessLog = false,
        public string $accessLogFormat = 'common',
        public string $serverHeader = 'Bobbin',
        public string $trustedProxies = '',
        public bool $debugErrors = false,
        public string $strayOutput = 'body',
        public string $accessLogFile = '',
        public string $tlsCert = '',
        public string $tlsKey = '',
        /** @var list<string> --static values, [PREFIX=]DIR */
        public array $static = [],
        public bool $staticDotfiles = false,
        public bool $compression = false,
        public int $compressionLevel = 1,
        public int $compressionMinBytes = 1024,
    ) {
        ListenAddress::parse($listen);
        foreach (['backlog' => $backlog, 'max-request-line-bytes' => $maxRequestLineBytes, 'max-header-bytes' => $maxHeaderBytes,
            'max-header-count' => $maxHeaderCount] as $name => $value) {
            if ($value < 1) {
                throw new InvalidConfigException(\sprintf('--%s must be at least 1, got %d', $name, $value));
            }
        }
        foreach (['max-body-bytes' => $maxBodyBytes, 'max-requests-per-connection' => $maxRequestsPerConnection,
            'max-connections' => $maxConnections, 'min-data-rate' => $minDataRate] as $name => $value) {
            if ($value < 0) {
                throw new InvalidConfigException(\sprintf('--%s must not be negative, got %d', $name, $value));
            }
        }
        foreach (['header-timeout' => $headerTimeout, 'idle-timeout' => $idleTimeout, 'body-timeout' => $bodyTimeout,
            'request-timeout' => $requestTimeout, 'write-timeout' => $writeTimeout, 'data-rate-window' => $dataRateWindow] as $name => $value) {
            if (!($value > 0.0) || \is_infinite($value)) {
                throw new InvalidConfigException(\sprintf('--%s must be a positive number of seconds', $name));
            }
        }
        if ($drainTimeout < 0.0) {
            throw new InvalidConfigException('--drain-timeout must not be negative');
        }
        if ($maxRequestLineBytes > $maxHeaderBytes) {
            throw new InvalidConfigException('--max-request-line-bytes must not exceed --max-header-bytes');
        }
        TrustedProxies::fromList($trustedProxies);
        if ($accessLogFormat !== 'common' && $accessLogFormat !== 'json') {
            throw new InvalidConfigException('--access-log-format must be "common" or "json"');
        }
        if ($strayOutput !== 'body' && $strayOutput !== 'log') {
            throw new InvalidConfigException('--stray-output must be "body" or "log"');
        }
        if ($tlsKey !== '' && $tlsCert === '') {
            throw new InvalidConfigException('--tls-key goes with --tls-cert');
        }
        if ($tlsCert !== '' && \str_starts_with($listen, 'unix:')) {
            throw new InvalidConfigException('--tls-cert needs a TCP --listen address (a unix socket is local: no TLS there)');
        }
        foreach ($static as $mount) {
            StaticFiles\StaticMount::parse($mount);
        }
        if ($compressionLevel < 1 || $compressionLevel > 9) {
            throw new InvalidConfigException(\sprintf('--compression-level must be 1 to 9, got %d', $compressionLevel));
        }
        if ($compressionMinBytes < 0) {
            throw new InvalidConfigException('--compression-min-bytes must not be negative');
        }
        if (\strpbrk($serverHeader, "\r\n\0") !== false) {
            throw new InvalidConfigException('--server-header must be a single line');
        }
    }

    /**
     * Builds a config from option => value pairs (strings from the command line or the
     * environment, or typed values from a config file). Unknown options are an error.
     *
     * @param array<string, mixed> $options
     * @throws InvalidConfigException
     */
    public static function fromArray(array $options): self
    {
        $arguments = [];
        foreach ($options as $name => $value) {
            if (!isset(self::OPTIONS[$name])) {
                throw new InvalidConfigException(\sprintf('Unknown option --%s', $name));
            }
            [$property, $type] = self::OPTIONS[$name];
            $arguments[$property] = self::convert($name, $type, $value);
        }

        return new self(...$arguments);
    }

    /** How often the connection sweeper must look so that every timeout fires roughly on time. */
    public function sweepInterval(): float
    {
        $shortest = \min($this->headerTimeout, $this->idleTimeout, $this->bodyTimeout, $this->requestTimeout, $this->writeTimeout, $this->dataRateWindow);

        return \max(0.05, \min(1.0, $shortest / 4));
    }

    /**
     * @return int|float|bool|string|list<string>
     */
    private static function convert(string $name, string $type, mixed $value): int|float|bool|string|array
    {
        switch ($type) {
            case 'list':
                // Repeated on the command line: a list; from the environment or a config file: comma-separated too.
                $items = \is_array($value) ? $value : [$value];
                $list = [];
                foreach ($items as $item) {
                    if (!\is_string($item)) {
                        break 2;
                    }
                    foreach (\explode(',', $item) as $one) {
                        if (\trim($one) !== '') {
                            $list[] = \trim($one);
                        }
                    }
                }

                return $list;
            case 'int':
                if (\is_int($value)) {
                    return $value;
                }
                if (\is_string($value) && \preg_match('/^\s*(\d{1,18})\s*$/', $value, $m) === 1) {
                    return (int) $m[1];
                }
                break;
            case 'size':
                if (\is_int($value)) {
                    return $value;
                }
                if (\is_string($value)) {
                    try {
                        return ByteSize::parse($value);
                    } catch (\InvalidArgumentException) {
                    }
                }
                break;
            case 'float':
                if (\is_int($value) || \is_float($value)) {
                    return (float) $value;
                }
                if (\is_string($value) && \is_numeric(\trim($value))) {
                    return (float) \trim($value);
                }
                break;
            case 'bool':
                if (\is_bool($value)) {
                    return $value;
                }
                if (\is_int($value) || \is_string($value)) {
                    $bool = \filter_var($value, \FILTER_VALIDATE_BOOL, \FILTER_NULL_ON_FAILURE);
                    if ($bool !== null) {
                        return $bool;
                    }
                }
                break;
            default:
                if (\is_string($value)) {
                    return $value;
                }
        }

        throw new InvalidConfigException(\sprintf('--%s expects %s, got %s', $name, match ($type) {
            'int' => 'a whole number',
            'size' => 'a byte count (e.g. 1048576, 512K, 32M, 1G)',
            'float' => 'a number of seconds',
            'bool' => 'a boolean (1/0, true/false, on/off)',
            'list' => 'strings',
            default => 'a string',
        }, \is_scalar($value) ? \var_export($value, true) : \get_debug_type($value)));
    }
}
