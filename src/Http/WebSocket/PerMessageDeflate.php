<?php

declare(strict_types=1);

namespace Bobbin\Http\WebSocket;

/**
 * RFC 7692's permessage-deflate, pure: the negotiation, and a message's payload compressed and
 * inflated. Always without context takeover in both directions, so a WebSocket holds no zlib
 * state between messages: every message is compressed on its own (one deflate context for the
 * whole process, reset by a full flush after each message) and inflated with a fresh context.
 * Context takeover would compress chat-like traffic better, at ~300 KiB of zlib state per
 * connection (its 32 KiB windows and deflate's hash tables): not affordable at 10,000 connections.
 *
 * @internal
 */
final class PerMessageDeflate
{
    /** Messages shorter than this go uncompressed: their deflate header would cost more than it saves. */
    public const COMPRESS_FROM_BYTES = 64;
    /** The most a byte of deflate input can become (deflate's longest match per two bits, rounded up). */
    private const MAX_RATIO = 1032;
    private const TAIL = "\x00\x00\xff\xff";

    /** @var array<int, \DeflateContext> the process's deflate contexts by window bits */
    private static array $deflaters = [];

    private function __construct(private readonly int $serverWindowBits)
    {
    }

    /**
     * The first permessage-deflate offer of a Sec-WebSocket-Extensions header that this server
     * can accept, or null (the client's other offers, and malformed ones, are declined).
     */
    public static function negotiate(string $offers): ?self
    {
        foreach (self::split($offers, ',') as $offer) {
            $parameters = self::split($offer, ';');
            if (\strtolower(\array_shift($parameters) ?? '') !== 'permessage-deflate') {
                continue;
            }
            $accepted = self::accept($parameters);
            if ($accepted !== null) {
                return $accepted;
            }
        }

        return null;
    }

    /** The Sec-WebSocket-Extensions answer. */
    public function responseHeader(): string
    {
        return 'permessage-deflate; server_no_context_takeover; client_no_context_takeover'
            . ($this->serverWindowBits < 15 ? '; server_max_window_bits=' . $this->serverWindowBits : '');
    }

    /** A message's payload compressed (RFC 7692 §7.2.1: the trailing 00 00 ff ff removed). */
    public function compress(string $data): string
    {
        $deflater = self::$deflaters[$this->serverWindowBits] ??= \deflate_init(\ZLIB_ENCODING_RAW, ['window' => $this->serverWindowBits])
            ?: throw new \RuntimeException('zlib could not make a deflate context');
        // The full flush forgets what came before: the next message, any connection's, starts afresh.
        $compressed = \deflate_add($deflater, $data, \ZLIB_FULL_FLUSH);
        if ($compressed === false) {
            unset(self::$deflaters[$this->serverWindowBits]);
            throw new \RuntimeException('zlib failed to compress a message');
        }

        return \substr($compressed, 0, -4);
    }

    /**
     * A compressed message's payload inflated (§7.2.2), in pieces small enough that a deflate
     * bomb is stopped near the limit rather than inflated whole.
     *
     * @throws ProtocolViolation 1009 past $limit bytes, 1007 for data that is not deflate
     */
    public static function inflate(string $compressed, int $limit): string
    {
        $inflater = \inflate_init(\ZLIB_ENCODING_RAW) ?: throw new \RuntimeException('zlib could not make an inflate context');
        $input = $compressed . self::TAIL;
        $length = \strlen($input);
        $inflated = '';
        for ($offset = 0; $offset < $length; $offset += $piece) {
            $piece = \min(65536, \max(64, \intdiv($limit - \strlen($inflated), self::MAX_RATIO)));
            $out = @\inflate_add($inflater, \substr($input, $offset, $piece), \ZLIB_SYNC_FLUSH);
            if ($out === false) {
                throw new ProtocolViolation(1007, 'a compressed message that is not valid deflate data');
            }
            $inflated .= $out;
            if (\strlen($inflated) > $limit) {
                throw new ProtocolViolation(1009, \sprintf('a message over the limit of %d bytes once inflated', $limit));
            }
            if (\inflate_get_status($inflater) === \ZLIB_STREAM_END) {
                break; // a final block (BFINAL): what follows is the tail we added
            }
        }

        return $inflated;
    }

    /** @param list<string> $parameters */
    private static function accept(array $parameters): ?self
    {
        $windowBits = 15;
        $seen = [];
        foreach ($parameters as $parameter) {
            $pair = \explode('=', $parameter, 2);
            $name = \strtolower(\trim($pair[0]));
            $value = isset($pair[1]) ? \trim(\trim($pair[1]), '"') : null;
            if (isset($seen[$name])) {
                return null; // §7: a parameter given twice declines the offer
            }
            $seen[$name] = true;
            switch ($name) {
                case 'server_no_context_takeover':
                case 'client_no_context_takeover':
                    if ($value !== null) {
                        return null;
                    }
                    break;
                case 'server_max_window_bits':
                    // zlib turns a raw window of 8 bits into 9, which a client asking for 8 could not read.
                    if ($value === null || \preg_match('/^(9|1[0-5])$/', $value) !== 1) {
                        return null;
                    }
                    $windowBits = (int) $value;
                    break;
                case 'client_max_window_bits':
                    // Any window the client compresses with can be inflated with ours (15 bits): nothing to answer.
                    if ($value !== null && \preg_match('/^([89]|1[0-5])$/', $value) !== 1) {
                        return null;
                    }
                    break;
                default:
                    return null;
            }
        }

        return new self($windowBits);
    }

    /**
     * @param non-empty-string $separator
     * @return list<string> the non-empty trimmed parts of $header between $separator (no quoted separators in this extension's grammar)
     */
    private static function split(string $header, string $separator): array
    {
        return \array_values(\array_filter(\array_map('trim', \explode($separator, $header)), static fn (string $part): bool => $part !== ''));
    }
}
