<?php

declare(strict_types=1);

namespace Bobbin\Http;

/** A parsed --listen value: a TCP host:port or a unix socket path. */
final readonly class ListenAddress
{
    private function __construct(
        public ?string $host,
        public ?int $port,
        public ?string $unixPath,
    ) {
    }

    /** @throws InvalidConfigException */
    public static function parse(string $listen): self
    {
        if (\str_starts_with($listen, 'unix:')) {
            $path = \substr($listen, 5);
            if (\str_starts_with($path, '//')) {
                $path = \substr($path, 2);
            }
            if ($path === '' || \str_contains($path, "\0")) {
                throw new InvalidConfigException(\sprintf('--listen: "%s" names no unix socket path', $listen));
            }

            return new self(null, null, $path);
        }
        if (\preg_match('/^(?:\[([0-9a-fA-F:.]+)\]|([^:\[\]\s\/]+)):(\d{1,5})$/', $listen, $m) !== 1 || (int) $m[3] > 65535) {
            throw new InvalidConfigException(\sprintf('--listen: "%s" is not HOST:PORT or unix:/path', $listen));
        }

        return new self($m[1] !== '' ? $m[1] : $m[2], (int) $m[3], null);
    }

    /**
     * The address a bound listening socket answers on, as logs and the status show it:
     * unix:/path, host:port, or [v6]:port.
     *
     * @param resource $listener
     */
    public static function ofSocket($listener): string
    {
        $name = (string) \stream_socket_get_name($listener, false);
        $meta = \stream_get_meta_data($listener);
        if (\str_starts_with($meta['stream_type'], 'unix') || ($name !== '' && $name[0] === '/')) {
            return 'unix:' . $name;
        }
        $colon = (int) \strrpos($name, ':');
        $host = \substr($name, 0, $colon);

        return \str_contains($host, ':') ? '[' . $host . ']:' . \substr($name, $colon + 1) : $name;
    }

    public function isUnix(): bool
    {
        return $this->unixPath !== null;
    }

    /** The address in the form stream_socket_server() takes. */
    public function toStreamAddress(): string
    {
        if ($this->unixPath !== null) {
            return 'unix://' . $this->unixPath;
        }

        return \sprintf(\str_contains((string) $this->host, ':') ? 'tcp://[%s]:%d' : 'tcp://%s:%d', $this->host, $this->port);
    }
}
