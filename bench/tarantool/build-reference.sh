#!/usr/bin/env bash
# Builds the pure-PHP reference clients that bench/tarantool/reference.php measures Bobbin
# against, from their public sources, into var/bench-tarantool-ref/ (a bench step: never part of
# scripts/test; neither package is in the Composer registry this machine reaches):
#
#   tarantool/client  (github.com/tarantool-php/client)   tag v0.10.1
#   rybakit/msgpack   (github.com/rybakit/msgpack.php)     tag v0.9.2 (what tarantool/client ^0.9 takes)
#
#   bench/tarantool/build-reference.sh [CLIENT_GIT_DIR MSGPACK_GIT_DIR]
#
# Without arguments it clones both from GitHub; with them it exports the tags from local git
# repositories (bare ones too, e.g. mirrors). The result is the two src/ trees and autoload.php,
# a PSR-4 autoloader (Tarantool\Client\ and MessagePack\). symfony/uid, which tarantool/client
# requires, is only loaded by its UUID extension, which nothing here encodes or decodes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="$root/var/bench-tarantool-ref"
client_tag=v0.10.1
msgpack_tag=v0.9.2

export_tag() { # GIT_DIR TAG DEST
    rm -rf "$3" && mkdir -p "$3"
    git --git-dir="$1" archive "$2" src LICENSE | tar -x -C "$3"
}

mkdir -p "$out"
if (($# == 2)); then
    client_git="$1"
    msgpack_git="$2"
else
    tmp="$out/clones"
    rm -rf "$tmp" && mkdir -p "$tmp"
    git clone --quiet --bare --depth 1 --branch "$client_tag" https://github.com/tarantool-php/client "$tmp/client.git"
    git clone --quiet --bare --depth 1 --branch "$msgpack_tag" https://github.com/rybakit/msgpack.php "$tmp/msgpack.git"
    client_git="$tmp/client.git"
    msgpack_git="$tmp/msgpack.git"
fi
[[ -d "$client_git/objects" ]] || client_git="$client_git/.git"
[[ -d "$msgpack_git/objects" ]] || msgpack_git="$msgpack_git/.git"
export_tag "$client_git" "$client_tag" "$out/client"
export_tag "$msgpack_git" "$msgpack_tag" "$out/msgpack"
printf '%s\n' "tarantool/client $client_tag $(git --git-dir="$client_git" rev-parse "$client_tag^{commit}")" \
    "rybakit/msgpack $msgpack_tag $(git --git-dir="$msgpack_git" rev-parse "$msgpack_tag^{commit}")" > "$out/VERSIONS"

cat > "$out/autoload.php" <<'PHP'
<?php

declare(strict_types=1);

// PSR-4 for the two reference packages, written by bench/tarantool/build-reference.sh.
\spl_autoload_register(static function (string $class): void {
    foreach (['Tarantool\\Client\\' => __DIR__ . '/client/src/', 'MessagePack\\' => __DIR__ . '/msgpack/src/'] as $prefix => $dir) {
        if (\str_starts_with($class, $prefix)) {
            $file = $dir . \str_replace('\\', '/', \substr($class, \strlen($prefix))) . '.php';
            if (\is_file($file)) {
                require $file;
            }

            return;
        }
    }
});
PHP
echo "Built into $out:"
cat "$out/VERSIONS"
