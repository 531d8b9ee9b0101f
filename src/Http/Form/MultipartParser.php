<?php

declare(strict_types=1);

namespace Bobbin\Http\Form;

/**
 * multipart/form-data (RFC 7578, RFC 2046 §5.1) split into its parts. Pure: a body and its
 * Content-Type in, parts out, or a MalformedBodyException saying what is wrong.
 *
 * What PHP's own parser (main/rfc1867.c) accepts is accepted: a preamble before the first
 * delimiter and an epilogue after the last are ignored; header names are case-insensitive;
 * `name` and `filename` may be quoted (backslash escapes) or bare tokens; a part without a
 * name is skipped. A body that never reaches its final delimiter, a part without its blank
 * line after the headers, or more parts than $maxParts are refused.
 *
 * @internal used by RequestBuilder
 */
final class MultipartParser
{
    private const MAX_PART_HEADER_BYTES = 8192;

    public function __construct(private readonly int $maxParts = 1020)
    {
    }

    /**
     * The boundary of a multipart/form-data Content-Type, or null when the type is another one.
     *
     * @throws MalformedBodyException for multipart/form-data without a usable boundary
     */
    public static function boundaryOf(string $contentType): ?string
    {
        $semicolon = \strpos($contentType, ';');
        $type = \strtolower(\trim($semicolon === false ? $contentType : \substr($contentType, 0, $semicolon)));
        if ($type !== 'multipart/form-data') {
            return null;
        }
        $parameters = self::parameters($semicolon === false ? '' : \substr($contentType, $semicolon + 1));
        $boundary = $parameters['boundary'] ?? '';
        // RFC 2046 §5.1.1: 1 to 70 characters, not ending in a space.
        if ($boundary === '' || \strlen($boundary) > 70 || \str_ends_with($boundary, ' ')) {
            throw new MalformedBodyException('multipart/form-data without a valid boundary');
        }

        return $boundary;
    }

    /**
     * @return list<MultipartPart>
     * @throws MalformedBodyException
     */
    public function parse(string $body, string $boundary): array
    {
        $delimiter = '--' . $boundary;
        // The first delimiter may open the body or follow a preamble (after a CRLF).
        if (\str_starts_with($body, $delimiter)) {
            $position = \strlen($delimiter);
        } else {
            $found = \strpos($body, "\r\n" . $delimiter);
            if ($found === false) {
                throw new MalformedBodyException('The multipart body has no delimiter of its boundary');
            }
            $position = $found + 2 + \strlen($delimiter);
        }
        $parts = [];
        $next = "\r\n" . $delimiter;
        while (true) {
            if (\substr($body, $position, 2) === '--') {
                return $parts; // the close delimiter; what follows is the epilogue
            }
            // Transport padding (RFC 2046 allows linear white space) before the line end.
            $lineEnd = \strpos($body, "\r\n", $position);
            if ($lineEnd === false || \trim(\substr($body, $position, $lineEnd - $position), " \t") !== '') {
                throw new MalformedBodyException('A multipart delimiter is not followed by a line end');
            }
            $headersEnd = \strpos($body, "\r\n\r\n", $lineEnd);
            $end = \strpos($body, $next, $lineEnd);
            if ($end === false) {
                throw new MalformedBodyException('The multipart body ends before its close delimiter');
            }
            if ($end === $lineEnd || $headersEnd === $lineEnd) {
                // A part without headers (the next delimiter, or a blank line, right after the
                // delimiter's line): nothing names it, so it is skipped below.
                $headerBlock = $content = '';
            } elseif ($headersEnd === false || $headersEnd + 2 > $end) {
                throw new MalformedBodyException('A multipart part has no blank line after its headers');
            } else {
                $headerBlock = \substr($body, $lineEnd + 2, $headersEnd - $lineEnd - 2);
                $content = \substr($body, $headersEnd + 4, $end - $headersEnd - 4);
            }
            if (\strlen($headerBlock) > self::MAX_PART_HEADER_BYTES) {
                throw new MalformedBodyException('The headers of a multipart part are too large');
            }
            $part = self::part($headerBlock, $content);
            if ($part !== null) {
                if (\count($parts) >= $this->maxParts) {
                    throw new MalformedBodyException(\sprintf('More than %d parts in a multipart body', $this->maxParts));
                }
                $parts[] = $part;
            }
            $position = $end + \strlen($next);
        }
    }

    /** @throws MalformedBodyException */
    private static function part(string $headerBlock, string $content): ?MultipartPart
    {
        $disposition = $contentType = null;
        foreach ($headerBlock === '' ? [] : \explode("\r\n", $headerBlock) as $line) {
            $colon = \strpos($line, ':');
            if ($colon === false || $colon === 0) {
                throw new MalformedBodyException('A multipart part has a malformed header line');
            }
            $name = \strtolower(\rtrim(\substr($line, 0, $colon), " \t"));
            $value = \trim(\substr($line, $colon + 1), " \t");
            if ($name === 'content-disposition') {
                $disposition = $value;
            } elseif ($name === 'content-type') {
                $contentType = $value;
            }
        }
        if ($disposition === null) {
            return null; // RFC 7578 §4.2: every part has one; PHP skips parts without
        }
        $semicolon = \strpos($disposition, ';');
        if (\strtolower(\trim($semicolon === false ? $disposition : \substr($disposition, 0, $semicolon))) !== 'form-data') {
            return null;
        }
        $parameters = self::parameters($semicolon === false ? '' : \substr($disposition, $semicolon + 1));
        $name = $parameters['name'] ?? '';
        if ($name === '') {
            return null;
        }

        return new MultipartPart($name, $parameters['filename'] ?? null, $contentType, $content);
    }

    /**
     * `; key=value; key="quoted \" value"` into lower-case keys => values.
     *
     * @return array<string, string>
     */
    private static function parameters(string $text): array
    {
        \preg_match_all('/\G\s*;?\s*([^\s=;]+)\s*=\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;]*))\s*/s', $text, $matches, \PREG_SET_ORDER);
        $parameters = [];
        foreach ($matches as $match) {
            $key = \strtolower($match[1]);
            $parameters[$key] ??= ($match[2] ?? '') !== '' || !isset($match[3])
                ? \preg_replace('/\\\\(.)/s', '$1', $match[2] ?? '') ?? ''
                : \trim($match[3]);
        }

        return $parameters;
    }
}
