# Shared helpers for the scripts in this folder. Sourced, not run.
# shellcheck shell=bash

BOBBIN_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export BOBBIN_ROOT

say() { printf '[bobbin] %s\n' "$*" >&2; }
die() { printf '[bobbin] error: %s\n' "$*" >&2; exit 1; }

# A TCP port on 127.0.0.1 that nothing listens on right now.
free_port() {
    php -r '$s = stream_socket_server("tcp://127.0.0.1:0"); $n = stream_socket_get_name($s, false); echo substr($n, strrpos($n, ":") + 1), "\n";'
}

port_is_free() {
    php -r '$s = @stream_socket_server("tcp://127.0.0.1:" . $argv[1]); exit($s ? 0 : 1);' "$1"
}
