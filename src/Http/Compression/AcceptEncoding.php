<?php

declare(strict_types=1);

namespace Bobbin\Http\Compression;

/**
 * Chooses a content coding from an Accept-Encoding header (RFC 9110 §12.5.3). Pure.
 *
 * Codings the client lists with q=0 are refused; "*" stands for every coding it does not name;
 * among the acceptable ones the highest q wins, ties going to the order of $offered (the
 * server's preference: the smallest output first). "x-gzip" is gzip. A malformed q-value makes
 * its element count for nothing. No header, or nothing acceptable: null (identity).
 *
 * @internal used by ResponseCompression and StaticFilesHandler
 */
final class AcceptEncoding
{
    /**
     * @param list<string> $offered lower-case codings the server can send, preferred first
     */
    public static function choose(?string $header, array $offered): ?string
    {
        if ($header === null || $header === '' || $offered === []) {
            return null;
        }
        $weights = [];
        $wildcard = null;
        foreach (\explode(',', $header, 64) as $element) {
            $parts = \explode(';', $element);
            $coding = \strtolower(\trim($parts[0], " \t"));
            if ($coding === '') {
                continue;
            }
            $q = 1.0;
            foreach (\array_slice($parts, 1) as $parameter) {
                $parameter = \trim($parameter, " \t");
                if (\strncasecmp($parameter, 'q=', 2) !== 0) {
                    continue;
                }
                $value = \substr($parameter, 2);
                // qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
                $q = \preg_match('/^(0(\.\d{0,3})?|1(\.0{0,3})?)$/D', $value) === 1 ? (float) $value : -1.0;
            }
            if ($q < 0.0) {
                continue;
            }
            if ($coding === 'x-gzip') {
                $coding = 'gzip';
            }
            if ($coding === '*') {
                $wildcard = $q;
            } elseif (!isset($weights[$coding]) || $q > $weights[$coding]) {
                $weights[$coding] = $q;
            }
        }
        $best = null;
        $bestQ = 0.0;
        foreach ($offered as $coding) {
            $q = $weights[$coding] ?? $wildcard ?? 0.0;
            if ($q > $bestQ) {
                $best = $coding;
                $bestQ = $q;
            }
        }

        return $best;
    }
}
