<?php

declare(strict_types=1);

namespace Bobbin\Http;

/**
 * The proxies (addresses and CIDR ranges, IPv4 and IPv6) whose X-Forwarded-For and
 * X-Forwarded-Proto the server believes (--trusted-proxies). From anyone else those headers
 * are the client's word and change nothing.
 *
 * @internal built from ServerConfig::$trustedProxies
 */
final class TrustedProxies
{
    /** @param list<array{string, int}> $ranges packed network address and prefix length */
    private function __construct(private readonly array $ranges)
    {
    }

    /**
     * @param string $list comma-separated addresses and ranges, e.g. "127.0.0.1,10.0.0.0/8,::1"
     * @throws InvalidConfigException for anything that is not one
     */
    public static function fromList(string $list): self
    {
        $ranges = [];
        foreach (\explode(',', $list) as $entry) {
            $entry = \trim($entry);
            if ($entry === '') {
                continue;
            }
            [$address, $prefix] = \str_contains($entry, '/') ? \explode('/', $entry, 2) : [$entry, null];
            $packed = @\inet_pton($address);
            $bits = $packed === false ? 0 : \strlen($packed) * 8;
            if ($packed === false || ($prefix !== null && (!\ctype_digit($prefix) || (int) $prefix > $bits))) {
                throw new InvalidConfigException(\sprintf('--trusted-proxies: "%s" is no IP address or CIDR range', $entry));
            }
            $ranges[] = [$packed, $prefix === null ? $bits : (int) $prefix];
        }

        return new self($ranges);
    }

    public function isEmpty(): bool
    {
        return $this->ranges === [];
    }

    public function contains(string $address): bool
    {
        $packed = @\inet_pton($address);
        if ($packed === false) {
            return false;
        }
        foreach ($this->ranges as [$network, $prefix]) {
            if (\strlen($network) !== \strlen($packed)) {
                continue;
            }
            $bytes = \intdiv($prefix, 8);
            if (\strncmp($network, $packed, $bytes) !== 0) {
                continue;
            }
            $rest = $prefix % 8;
            if ($rest === 0) {
                return true;
            }
            $mask = (0xff << (8 - $rest)) & 0xff;
            if ((\ord($network[$bytes]) & $mask) === (\ord($packed[$bytes]) & $mask)) {
                return true;
            }
        }

        return false;
    }

    /**
     * The client and scheme a trusted peer forwards: X-Forwarded-For (clientAddress()) and
     * X-Forwarded-Proto, whose last value is the one the nearest proxy added.
     *
     * @param array<string, list<string>> $headers the request's header fields as received
     * @return array{string, string} the client's address and "http" or "https"
     */
    public function forwarded(array $headers, string $peer): array
    {
        $forwardedFor = $proto = null;
        foreach ($headers as $name => $values) {
            $lower = \strtolower($name);
            if ($lower === 'x-forwarded-for') {
                $forwardedFor = \implode(',', $values);
            } elseif ($lower === 'x-forwarded-proto') {
                $proto = \implode(',', $values);
            }
        }
        $client = $forwardedFor === null ? $peer : $this->clientAddress($peer, $forwardedFor);
        $last = $proto === null ? '' : \strtolower(\trim((string) \strrchr(',' . $proto, ','), ", \t"));

        return [$client, $last === 'https' ? 'https' : 'http'];
    }

    /**
     * The client behind a trusted peer: X-Forwarded-For read from the right, each trusted proxy
     * skipped, the first address that is not one taken. A malformed entry stops the walk at the
     * last good address (what comes before it is unverifiable).
     */
    public function clientAddress(string $peer, string $forwardedFor): string
    {
        $client = $peer;
        $hops = \explode(',', $forwardedFor);
        for ($i = \count($hops) - 1; $i >= 0 && $this->contains($client); $i--) {
            $hop = \trim($hops[$i], " \t[]");
            if (@\inet_pton($hop) === false) {
                break;
            }
            $client = $hop;
        }

        return $client;
    }
}
