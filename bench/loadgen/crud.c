/*
 * bobbin-crud-load: a lean load generator for the aircraft CRUD cycle
 * (shared/contracts/aircraft-api.md), the same workload as bench/wrk/crud.lua.
 *
 * Why not wrk: the benchmark pins PostgreSQL and the load generator to the same core, and
 * `wrk -t50 -c50` with a Lua callback per response spent ~45 µs of that core per CRUD cycle,
 * so the shared core saturated before the server under test did. This program does the same
 * work in one thread with one epoll loop: per request one write(), usually one read(), and a
 * share of one epoll_wait(); no allocation after start-up.
 *
 * Each of N keep-alive connections runs POST /aircraft -> GET /aircraft/{id} ->
 * PUT /aircraft/{id} -> DELETE /aircraft/{id} in a loop, one request in flight at a time.
 * At the end it prints one line in the format of bench/wrk/crud.lua:
 *   RESULT {"cycles":N,"failed_cycles":N,"seconds":S,"requests":N,"socket_errors":N,
 *           "non2xx":N,"p50_ms":X,"p99_ms":X}
 * With --path=/p it GETs that path instead (cycles = successful requests).
 */
#define _GNU_SOURCE

#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* ---- limits ----------------------------------------------------------------------------- */

/* The application rejects a longer `number` (apps/aircraft AircraftInput::MAX_LENGTHS). */
#define NUMBER_MAX_CHARS 32
/* Room kept in `number` for the per-connection sequence: a billion cycles per connection. */
#define SEQ_RESERVED_DIGITS 9
#define REQUEST_CAP 1024
/* The whole response head must fit; bodies stream through and need not. */
#define INPUT_CAP 16384
#define HOST_MAX 255
#define PATH_MAX_CHARS 512
#define MAX_CONNECTIONS 10000
#define MAX_EVENTS 256
/* How often timeouts and delayed reconnects are looked at. */
#define SCAN_INTERVAL_NS 10000000ULL
/* A connection that failed before delivering any response waits this long before retrying,
 * so a server that is down costs a few connects per 10 ms instead of a busy loop. */
#define RECONNECT_BACKOFF_NS 10000000ULL

/* ---- latency histogram: log-linear, 1 µs resolution below 2 ms, ~0.1 % above ----------- */

#define HIST_EXACT 2048 /* values (µs) below this each have their own bucket */
#define HIST_SUB 1024   /* buckets per power of two above it */
#define HIST_FIRST_OCTAVE 11
#define HIST_OCTAVES 14 /* 2^11 .. 2^25 µs (~33 s); anything longer lands in the last bucket */
#define HIST_BUCKETS (HIST_EXACT + HIST_OCTAVES * HIST_SUB)

static uint64_t histogram[HIST_BUCKETS];
static uint64_t histogram_count;

static size_t histogram_bucket(uint64_t us)
{
    if (us < HIST_EXACT) {
        return (size_t)us;
    }
    int octave = 63 - __builtin_clzll(us);
    if (octave >= HIST_FIRST_OCTAVE + HIST_OCTAVES) {
        return HIST_BUCKETS - 1;
    }
    int shift = octave - 10; /* keeps the top 11 bits: 1024 sub-buckets per octave */
    return HIST_EXACT + (size_t)(octave - HIST_FIRST_OCTAVE) * HIST_SUB + (size_t)((us >> shift) - HIST_SUB);
}

/* The middle of a bucket, in µs. */
static double histogram_value(size_t bucket)
{
    if (bucket < HIST_EXACT) {
        return (double)bucket;
    }
    size_t k = bucket - HIST_EXACT;
    int shift = (int)(k / HIST_SUB) + HIST_FIRST_OCTAVE - 10;
    uint64_t lower = (uint64_t)(HIST_SUB + k % HIST_SUB) << shift;
    return (double)lower + (double)((1ULL << shift) - 1) / 2.0;
}

static void histogram_record(uint64_t ns)
{
    histogram[histogram_bucket((ns + 500) / 1000)]++;
    histogram_count++;
}

static double histogram_percentile_us(double percent)
{
    if (histogram_count == 0) {
        return 0.0;
    }
    uint64_t rank = (uint64_t)((percent / 100.0) * (double)histogram_count + 0.999999);
    if (rank < 1) {
        rank = 1;
    }
    uint64_t seen = 0;
    for (size_t b = 0; b < HIST_BUCKETS; b++) {
        seen += histogram[b];
        if (seen >= rank) {
            return histogram_value(b);
        }
    }
    return histogram_value(HIST_BUCKETS - 1);
}

/* ---- configuration and counters ---------------------------------------------------------- */

static struct {
    char host_header[HOST_MAX + 1]; /* HOST:PORT as written in the URL */
    struct sockaddr_storage address;
    socklen_t address_len;
    int family;
    int connections;
    double duration_s;
    uint64_t timeout_ns;
    char nonce[64];
    char plain_path[PATH_MAX_CHARS + 1]; /* non-empty: plain GET mode */
} config = {.connections = 50, .duration_s = 10.0, .timeout_ns = 10000000000ULL};

enum error_kind { ERR_CONNECT, ERR_READ, ERR_WRITE, ERR_TIMEOUT, ERR_PARSE, ERR_KINDS };
static const char *const error_names[ERR_KINDS] = {"connect", "read", "write", "timeout", "parse"};

static struct {
    uint64_t cycles;
    uint64_t failed_cycles;
    uint64_t requests;
    uint64_t non2xx;
    uint64_t errors[ERR_KINDS];
    char first_error[ERR_KINDS][160]; /* the first message of each kind, for stderr */
} stats;

static volatile sig_atomic_t stop_requested;

/* ---- connections ------------------------------------------------------------------------- */

enum step { STEP_POST, STEP_GET, STEP_PUT, STEP_DELETE };
enum conn_state { CONN_WAITING, CONN_CONNECTING, CONN_WRITING, CONN_READING };
enum parse_state { PARSE_HEAD, PARSE_BODY, PARSE_CHUNK_SIZE, PARSE_CHUNK_DATA, PARSE_CHUNK_END, PARSE_TRAILER, PARSE_DONE };
enum parse_result { PARSE_NEED_MORE, PARSE_COMPLETE, PARSE_FAILED };

/* States of the streaming matcher for `"id":<digits>` in a POST response body. */
#define ID_KEY "\"id\":"
#define ID_KEY_LEN 5
#define ID_AFTER_COLON ID_KEY_LEN
#define ID_IN_DIGITS (ID_KEY_LEN + 1)
#define ID_FINISHED (ID_KEY_LEN + 2)

struct connection {
    int fd;
    int number; /* 1-based, part of the registration numbers like wrk's thread id */
    enum conn_state state;
    enum step step;
    bool cycle_started; /* a request of the current cycle went out: an error now fails it */
    uint64_t responses_on_socket;
    uint64_t seq;
    uint64_t aircraft_id;
    uint64_t started_ns; /* request written (or connect begun): latency and timeout origin */
    uint64_t retry_at_ns;
    size_t request_len;
    size_t request_sent;

    /* response parser */
    enum parse_state parse;
    int status;
    bool keep_alive;
    bool want_id;
    uint64_t body_left; /* of the Content-Length body or the current chunk */
    int id_state;
    int id_digits;
    uint64_t id_value;
    bool id_found;
    size_t in_pos;
    size_t in_len;

    char request[REQUEST_CAP];
    char in[INPUT_CAP];
};

static struct connection *connections;
static int epoll_fd;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void note_error(enum error_kind kind, const char *what, int number)
{
    if (stats.errors[kind]++ == 0) {
        snprintf(stats.first_error[kind], sizeof stats.first_error[kind], "connection %d: %s", number, what);
    }
}

static void open_connection(struct connection *c, uint64_t now);

static void close_socket(struct connection *c)
{
    if (c->fd >= 0) {
        close(c->fd); /* also removes it from the epoll set */
        c->fd = -1;
    }
}

/*
 * A socket, timeout or protocol error: count it, fail the cycle in progress and start a new one
 * on a new connection. A connection that never delivered a response waits before the retry.
 */
static void connection_failed(struct connection *c, uint64_t now, enum error_kind kind, const char *what)
{
    note_error(kind, what, c->number);
    if (c->cycle_started) {
        stats.failed_cycles++;
    }
    c->cycle_started = false;
    c->step = STEP_POST;
    bool delivered = c->responses_on_socket > 0;
    close_socket(c);
    if (delivered && !stop_requested) {
        open_connection(c, now);
    } else {
        c->state = CONN_WAITING;
        c->retry_at_ns = now + RECONNECT_BACKOFF_NS;
    }
}

static void failed_errno(struct connection *c, uint64_t now, enum error_kind kind, const char *call, int error)
{
    char what[128];
    snprintf(what, sizeof what, "%s: %s", call, strerror(error));
    connection_failed(c, now, kind, what);
}

static bool watch(struct connection *c, int op, uint32_t events)
{
    struct epoll_event ev = {.events = events, .data.ptr = c};
    return epoll_ctl(epoll_fd, op, c->fd, &ev) == 0;
}

/* ---- requests ---------------------------------------------------------------------------- */

static int format_aircraft_body(char *out, size_t cap, const struct connection *c, const char *title)
{
    return snprintf(out, cap,
                    "{\"number\":\"B-%s-%d-%llu\",\"title\":\"%s\",\"serial_number\":\"95001\","
                    "\"assembly_date\":\"2008-05-19\",\"added_at\":\"2024-01-31\"}",
                    config.nonce, c->number, (unsigned long long)c->seq, title);
}

/* Builds the next request of the connection's cycle into its request buffer. */
static void build_request(struct connection *c)
{
    char body[384];
    int body_len;
    int len;
    char *out = c->request;
    const size_t cap = sizeof c->request;

    if (config.plain_path[0] != '\0') {
        len = snprintf(out, cap, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", config.plain_path, config.host_header);
    } else {
        switch (c->step) {
        case STEP_POST:
            c->seq++;
            body_len = format_aircraft_body(body, sizeof body, c, "Sukhoi Superjet 100");
            len = snprintf(out, cap,
                           "POST /aircraft HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                           "Content-Length: %d\r\n\r\n%s",
                           config.host_header, body_len, body);
            break;
        case STEP_GET:
            len = snprintf(out, cap, "GET /aircraft/%llu HTTP/1.1\r\nHost: %s\r\n\r\n",
                           (unsigned long long)c->aircraft_id, config.host_header);
            break;
        case STEP_PUT:
            body_len = format_aircraft_body(body, sizeof body, c, "Airbus A320");
            len = snprintf(out, cap,
                           "PUT /aircraft/%llu HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                           "Content-Length: %d\r\n\r\n%s",
                           (unsigned long long)c->aircraft_id, config.host_header, body_len, body);
            break;
        default:
            len = snprintf(out, cap, "DELETE /aircraft/%llu HTTP/1.1\r\nHost: %s\r\n\r\n",
                           (unsigned long long)c->aircraft_id, config.host_header);
            break;
        }
    }
    /* Sizes are checked at start-up (host, nonce and path lengths), so this cannot truncate. */
    c->request_len = (size_t)len;
}

static void reset_parser(struct connection *c)
{
    c->parse = PARSE_HEAD;
    c->status = 0;
    c->keep_alive = true;
    c->want_id = config.plain_path[0] == '\0' && c->step == STEP_POST;
    c->body_left = 0;
    c->id_state = 0;
    c->id_digits = 0;
    c->id_value = 0;
    c->id_found = false;
}

static void send_request(struct connection *c, uint64_t now)
{
    build_request(c);
    reset_parser(c);
    if (c->step == STEP_POST || config.plain_path[0] != '\0') {
        c->cycle_started = true;
    }
    c->started_ns = now;
    c->request_sent = 0;
    /* The whole request in one write(): a few hundred bytes always fit an idle socket's buffer. */
    ssize_t n = write(c->fd, c->request, c->request_len);
    if (n == (ssize_t)c->request_len) {
        c->state = CONN_READING;
        return;
    }
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
        failed_errno(c, now, ERR_WRITE, "write", errno);
        return;
    }
    /* Short write: finish it when the socket is writable again. */
    c->request_sent = n > 0 ? (size_t)n : 0;
    c->state = CONN_WRITING;
    if (!watch(c, EPOLL_CTL_MOD, EPOLLOUT)) {
        failed_errno(c, now, ERR_WRITE, "epoll_ctl", errno);
    }
}

static void continue_write(struct connection *c, uint64_t now)
{
    ssize_t n = write(c->fd, c->request + c->request_sent, c->request_len - c->request_sent);
    if (n < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
            failed_errno(c, now, ERR_WRITE, "write", errno);
        }
        return;
    }
    c->request_sent += (size_t)n;
    if (c->request_sent == c->request_len) {
        c->state = CONN_READING;
        if (!watch(c, EPOLL_CTL_MOD, EPOLLIN)) {
            failed_errno(c, now, ERR_WRITE, "epoll_ctl", errno);
        }
    }
}

static void open_connection(struct connection *c, uint64_t now)
{
    c->responses_on_socket = 0;
    c->in_pos = c->in_len = 0;
    c->started_ns = now;
    c->fd = socket(config.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0) {
        failed_errno(c, now, ERR_CONNECT, "socket", errno);
        return;
    }
    /* Requests are single small writes that wait for an answer: never hold them back. */
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(c->fd, (const struct sockaddr *)&config.address, config.address_len) == 0) {
        if (!watch(c, EPOLL_CTL_ADD, EPOLLIN)) {
            failed_errno(c, now, ERR_CONNECT, "epoll_ctl", errno);
            return;
        }
        send_request(c, now);
        return;
    }
    if (errno != EINPROGRESS) {
        failed_errno(c, now, ERR_CONNECT, "connect", errno);
        return;
    }
    c->state = CONN_CONNECTING;
    if (!watch(c, EPOLL_CTL_ADD, EPOLLOUT)) {
        failed_errno(c, now, ERR_CONNECT, "epoll_ctl", errno);
    }
}

static void finish_connect(struct connection *c, uint64_t now)
{
    int error = 0;
    socklen_t len = sizeof error;
    if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &error, &len) < 0) {
        error = errno;
    }
    if (error != 0) {
        failed_errno(c, now, ERR_CONNECT, "connect", error);
        return;
    }
    if (!watch(c, EPOLL_CTL_MOD, EPOLLIN)) {
        failed_errno(c, now, ERR_CONNECT, "epoll_ctl", errno);
        return;
    }
    send_request(c, now);
}

/* ---- response parsing -------------------------------------------------------------------- */

static const char *parse_error;

static bool name_is(const char *name, size_t len, const char *expected)
{
    return strlen(expected) == len && strncasecmp(name, expected, len) == 0;
}

/* Does the comma-separated list (a Connection or Transfer-Encoding value) hold `token`? With
 * `last_only`, only its last element counts (Transfer-Encoding: the final coding). */
static bool list_has(const char *value, size_t len, const char *token, bool last_only)
{
    const char *end = value + len;
    bool found = false;
    while (value < end) {
        const char *comma = memchr(value, ',', (size_t)(end - value));
        const char *item_end = comma ? comma : end;
        const char *a = value;
        const char *b = item_end;
        while (a < b && (*a == ' ' || *a == '\t')) {
            a++;
        }
        while (b > a && (b[-1] == ' ' || b[-1] == '\t')) {
            b--;
        }
        bool match = name_is(a, (size_t)(b - a), token);
        if (last_only) {
            found = match;
        } else if (match) {
            return true;
        }
        value = comma ? comma + 1 : end;
    }
    return found;
}

/* Parses the status line and header fields in [head, head_end); sets where the body goes. */
static bool parse_head(struct connection *c, const char *head, const char *head_end)
{
    const char *line_end = memmem(head, (size_t)(head_end - head), "\r\n", 2);
    if (line_end == NULL) {
        line_end = head_end;
    }
    /* HTTP/1.x SP 3DIGIT [SP reason] */
    if (line_end - head < 12 || memcmp(head, "HTTP/1.", 7) != 0 || (head[7] != '0' && head[7] != '1')
        || head[8] != ' ' || head[9] < '1' || head[9] > '5' || head[10] < '0' || head[10] > '9' || head[11] < '0'
        || head[11] > '9' || (line_end - head > 12 && head[12] != ' ')) {
        parse_error = "malformed status line";
        return false;
    }
    c->status = (head[9] - '0') * 100 + (head[10] - '0') * 10 + (head[11] - '0');
    c->keep_alive = head[7] == '1'; /* HTTP/1.0 closes unless it says keep-alive */

    bool have_length = false;
    bool chunked = false;
    uint64_t length = 0;
    const char *line = line_end + 2;
    while (line < head_end) {
        const char *eol = memmem(line, (size_t)(head_end - line), "\r\n", 2);
        if (eol == NULL) {
            eol = head_end;
        }
        if (*line == ' ' || *line == '\t') {
            parse_error = "obsolete header line folding";
            return false;
        }
        const char *colon = memchr(line, ':', (size_t)(eol - line));
        if (colon == NULL || colon == line) {
            parse_error = "malformed header line";
            return false;
        }
        size_t name_len = (size_t)(colon - line);
        const char *value = colon + 1;
        const char *value_end = eol;
        while (value < value_end && (*value == ' ' || *value == '\t')) {
            value++;
        }
        while (value_end > value && (value_end[-1] == ' ' || value_end[-1] == '\t')) {
            value_end--;
        }
        size_t value_len = (size_t)(value_end - value);

        if (name_is(line, name_len, "content-length")) {
            uint64_t v = 0;
            if (value_len == 0 || value_len > 15) {
                parse_error = "bad Content-Length";
                return false;
            }
            for (size_t i = 0; i < value_len; i++) {
                if (value[i] < '0' || value[i] > '9') {
                    parse_error = "bad Content-Length";
                    return false;
                }
                v = v * 10 + (uint64_t)(value[i] - '0');
            }
            if (have_length && v != length) {
                parse_error = "conflicting Content-Length headers";
                return false;
            }
            have_length = true;
            length = v;
        } else if (name_is(line, name_len, "transfer-encoding")) {
            if (!list_has(value, value_len, "chunked", true)) {
                parse_error = "unsupported Transfer-Encoding";
                return false;
            }
            chunked = true;
        } else if (name_is(line, name_len, "connection")) {
            if (list_has(value, value_len, "close", false)) {
                c->keep_alive = false;
            } else if (list_has(value, value_len, "keep-alive", false)) {
                c->keep_alive = true;
            }
        }
        line = eol + 2;
    }

    if ((c->status >= 100 && c->status < 200) || c->status == 204 || c->status == 304) {
        c->parse = PARSE_DONE; /* no body by definition */
    } else if (chunked) {
        c->parse = PARSE_CHUNK_SIZE; /* wins over Content-Length (RFC 9112 6.3) */
    } else if (have_length) {
        c->body_left = length;
        c->parse = length == 0 ? PARSE_DONE : PARSE_BODY;
    } else {
        /* A body delimited by the end of the connection would cost a connection per request. */
        parse_error = "response without Content-Length or chunked encoding";
        return false;
    }
    return true;
}

/* Looks for `"id":<digits>` in body bytes as they stream by (the first one counts, as in
 * bench/wrk/crud.lua's '"id":(%d+)'; whitespace after the colon is allowed). */
static void match_id(struct connection *c, const char *p, size_t n)
{
    for (size_t i = 0; i < n && c->id_state != ID_FINISHED; i++) {
        char ch = p[i];
        if (c->id_state < ID_KEY_LEN) {
            if (ch == ID_KEY[c->id_state]) {
                c->id_state++;
            } else {
                c->id_state = ch == '"' ? 1 : 0;
            }
        } else if (c->id_state == ID_AFTER_COLON) {
            if (ch >= '0' && ch <= '9') {
                c->id_value = (uint64_t)(ch - '0');
                c->id_digits = 1;
                c->id_state = ID_IN_DIGITS;
            } else if (ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n') {
                c->id_state = ch == '"' ? 1 : 0;
            }
        } else if (ch >= '0' && ch <= '9') {
            if (++c->id_digits > 18) {
                c->id_state = ID_FINISHED; /* not an id this program can send back */
            } else {
                c->id_value = c->id_value * 10 + (uint64_t)(ch - '0');
            }
        } else {
            c->id_found = true;
            c->id_state = ID_FINISHED;
        }
    }
}

static void consume_body(struct connection *c, size_t *available)
{
    size_t take = *available < c->body_left ? *available : (size_t)c->body_left;
    if (c->want_id) {
        match_id(c, c->in + c->in_pos, take);
    }
    c->in_pos += take;
    c->body_left -= take;
    *available -= take;
}

/* Advances the parser over the buffered bytes. */
static enum parse_result parse_response(struct connection *c)
{
    for (;;) {
        size_t available = c->in_len - c->in_pos;
        const char *p = c->in + c->in_pos;
        switch (c->parse) {
        case PARSE_HEAD: {
            const char *end = memmem(p, available, "\r\n\r\n", 4);
            if (end == NULL) {
                if (c->in_pos == 0 && c->in_len == sizeof c->in) {
                    parse_error = "response head larger than the input buffer";
                    return PARSE_FAILED;
                }
                return PARSE_NEED_MORE;
            }
            if (!parse_head(c, p, end)) {
                return PARSE_FAILED;
            }
            c->in_pos += (size_t)(end + 4 - p);
            if (c->parse == PARSE_DONE && c->status < 200) {
                if (c->status == 101) {
                    parse_error = "unexpected 101 Switching Protocols";
                    return PARSE_FAILED;
                }
                reset_parser(c); /* an interim 1xx answer: the real one follows */
            }
            break;
        }
        case PARSE_BODY:
            consume_body(c, &available);
            if (c->body_left == 0) {
                c->parse = PARSE_DONE;
                break;
            }
            return PARSE_NEED_MORE;
        case PARSE_CHUNK_SIZE:
        case PARSE_TRAILER: {
            const char *eol = memmem(p, available, "\r\n", 2);
            if (eol == NULL) {
                if (available > 4096) {
                    parse_error = "chunk-size or trailer line too long";
                    return PARSE_FAILED;
                }
                return PARSE_NEED_MORE;
            }
            c->in_pos += (size_t)(eol + 2 - p);
            if (c->parse == PARSE_TRAILER) {
                if (eol == p) {
                    c->parse = PARSE_DONE; /* the empty line ending the trailer section */
                }
                break;
            }
            uint64_t size = 0;
            const char *q = p;
            for (; q < eol; q++) {
                int digit;
                if (*q >= '0' && *q <= '9') {
                    digit = *q - '0';
                } else if ((*q | 0x20) >= 'a' && (*q | 0x20) <= 'f') {
                    digit = (*q | 0x20) - 'a' + 10;
                } else {
                    break;
                }
                if (size > (1ULL << 40)) {
                    parse_error = "chunk size too large";
                    return PARSE_FAILED;
                }
                size = size * 16 + (uint64_t)digit;
            }
            /* at least one hex digit, then only whitespace or a chunk extension */
            if (q == p || (q < eol && *q != ';' && *q != ' ' && *q != '\t')) {
                parse_error = "malformed chunk-size line";
                return PARSE_FAILED;
            }
            if (size == 0) {
                c->parse = PARSE_TRAILER;
            } else {
                c->body_left = size;
                c->parse = PARSE_CHUNK_DATA;
            }
            break;
        }
        case PARSE_CHUNK_DATA:
            consume_body(c, &available);
            if (c->body_left == 0) {
                c->parse = PARSE_CHUNK_END;
                break;
            }
            return PARSE_NEED_MORE;
        case PARSE_CHUNK_END:
            if (available < 2) {
                return PARSE_NEED_MORE;
            }
            if (p[0] != '\r' || p[1] != '\n') {
                parse_error = "chunk data not followed by CRLF";
                return PARSE_FAILED;
            }
            c->in_pos += 2;
            c->parse = PARSE_CHUNK_SIZE;
            break;
        case PARSE_DONE:
            if (c->want_id && c->id_state == ID_IN_DIGITS) {
                c->id_found = true; /* the body ended right after the digits */
            }
            if (c->in_pos != c->in_len) {
                /* Only one request is ever in flight: anything more is not ours to read. */
                parse_error = "bytes after the end of the response";
                return PARSE_FAILED;
            }
            return PARSE_COMPLETE;
        }
    }
}

/* ---- the cycle --------------------------------------------------------------------------- */

static void fail_cycle(struct connection *c)
{
    stats.failed_cycles++;
    c->cycle_started = false;
    c->step = STEP_POST;
}

static void on_response(struct connection *c, uint64_t now)
{
    histogram_record(now - c->started_ns);
    stats.requests++;
    c->responses_on_socket++;
    /* Counted by the name: any status outside 2xx (wrk's own counter only counts 4xx/5xx). */
    if (c->status < 200 || c->status > 299) {
        stats.non2xx++;
    }

    if (config.plain_path[0] != '\0') {
        c->cycle_started = false;
        if (c->status >= 200 && c->status <= 299) {
            stats.cycles++;
        } else {
            stats.failed_cycles++;
        }
    } else {
        switch (c->step) {
        case STEP_POST:
            if (c->status == 201 && c->id_found) {
                c->aircraft_id = c->id_value;
                c->step = STEP_GET;
            } else {
                fail_cycle(c);
            }
            break;
        case STEP_GET:
            if (c->status == 200) {
                c->step = STEP_PUT;
            } else {
                fail_cycle(c);
            }
            break;
        case STEP_PUT:
            if (c->status == 200) {
                c->step = STEP_DELETE;
            } else {
                fail_cycle(c);
            }
            break;
        case STEP_DELETE:
            if (c->status == 204) {
                stats.cycles++;
                c->cycle_started = false;
                c->step = STEP_POST;
            } else {
                fail_cycle(c);
            }
            break;
        }
    }

    c->in_pos = c->in_len = 0;
    if (!c->keep_alive) {
        /* The server ends the connection (e.g. its requests-per-connection limit): not an
         * error; the cycle goes on over a new connection, as wrk does. */
        close_socket(c);
        open_connection(c, now);
        return;
    }
    send_request(c, now);
}

static void on_readable(struct connection *c, uint64_t now)
{
    ssize_t n = read(c->fd, c->in + c->in_len, sizeof c->in - c->in_len);
    if (n < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            failed_errno(c, now, ERR_READ, "read", errno);
        }
        return;
    }
    if (n == 0) {
        connection_failed(c, now, ERR_READ, c->in_len == 0 ? "connection closed before the response"
                                                            : "connection closed inside the response");
        return;
    }
    c->in_len += (size_t)n;
    switch (parse_response(c)) {
    case PARSE_COMPLETE:
        on_response(c, now);
        return;
    case PARSE_FAILED:
        connection_failed(c, now, ERR_PARSE, parse_error);
        return;
    case PARSE_NEED_MORE:
        /* Keep the unparsed tail at the front so the next read appends to it. */
        if (c->in_pos > 0) {
            memmove(c->in, c->in + c->in_pos, c->in_len - c->in_pos);
            c->in_len -= c->in_pos;
            c->in_pos = 0;
        }
        return;
    }
}

/* Timeouts and delayed reconnects; runs every SCAN_INTERVAL_NS. */
static void scan_connections(uint64_t now)
{
    for (int i = 0; i < config.connections; i++) {
        struct connection *c = &connections[i];
        if (c->state == CONN_WAITING) {
            if (now >= c->retry_at_ns) {
                open_connection(c, now);
            }
        } else if (now - c->started_ns >= config.timeout_ns) {
            connection_failed(c, now, ERR_TIMEOUT,
                              c->state == CONN_CONNECTING ? "connect timed out" : "response timed out");
        }
    }
}

/* ---- command line ------------------------------------------------------------------------ */

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: bobbin-crud-load --url=http://HOST:PORT [options]\n"
            "\n"
            "Drives the aircraft CRUD cycle (POST -> GET -> PUT -> DELETE /aircraft) over keep-alive\n"
            "connections from one thread and prints one line:\n"
            "RESULT {\"cycles\":N,\"failed_cycles\":N,\"seconds\":S,\"requests\":N,\"socket_errors\":N,"
            "\"non2xx\":N,\"p50_ms\":X,\"p99_ms\":X}\n"
            "\n"
            "Options:\n"
            "  --url=URL           http://HOST:PORT of the server (required)\n"
            "  --connections=N     concurrent connections, one cycle in flight each [50]\n"
            "  --duration=S        seconds to run [10]\n"
            "  --timeout=S         seconds a request (or connect) may take before it counts as an error [10]\n"
            "  --nonce=TEXT        makes registration numbers unique to this run: B-<nonce>-<conn>-<seq>\n"
            "                      [derived from the time and the process id]\n"
            "  --path=/PATH        instead of the cycle, GET this path repeatedly (cycles = 2xx answers)\n"
            "  --help              this text\n");
}

static void die_usage(const char *message, const char *detail)
{
    fprintf(stderr, "bobbin-crud-load: %s%s%s (see --help)\n", message, detail ? ": " : "", detail ? detail : "");
    exit(2);
}

static double parse_positive(const char *value, const char *option)
{
    char *end;
    errno = 0;
    double v = strtod(value, &end);
    if (errno != 0 || end == value || *end != '\0' || !(v > 0) || v > 1e9) {
        die_usage("wants a positive number", option);
    }
    return v;
}

static void parse_url(const char *url)
{
    static const char scheme[] = "http://";
    if (strncmp(url, scheme, sizeof scheme - 1) != 0) {
        die_usage("only http:// URLs are supported", url);
    }
    const char *authority = url + sizeof scheme - 1;
    const char *slash = strchr(authority, '/');
    size_t authority_len = slash ? (size_t)(slash - authority) : strlen(authority);
    if (slash != NULL && strcmp(slash, "/") != 0) {
        die_usage("the URL takes no path (the cycle's paths are fixed; see --path)", url);
    }
    if (authority_len == 0 || authority_len > HOST_MAX) {
        die_usage("bad host in URL", url);
    }
    memcpy(config.host_header, authority, authority_len);
    config.host_header[authority_len] = '\0';

    char host[HOST_MAX + 1];
    const char *port = "80";
    const char *colon;
    if (config.host_header[0] == '[') { /* [IPv6]:port */
        const char *close_bracket = strchr(config.host_header, ']');
        if (close_bracket == NULL) {
            die_usage("bad IPv6 address in URL", url);
        }
        size_t len = (size_t)(close_bracket - config.host_header - 1);
        memcpy(host, config.host_header + 1, len);
        host[len] = '\0';
        colon = close_bracket[1] == ':' ? close_bracket + 1 : NULL;
    } else {
        colon = strrchr(config.host_header, ':');
        size_t len = colon ? (size_t)(colon - config.host_header) : authority_len;
        memcpy(host, config.host_header, len);
        host[len] = '\0';
    }
    if (colon != NULL) {
        port = colon + 1;
    }

    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *found = NULL;
    int rc = getaddrinfo(host, port, &hints, &found);
    if (rc != 0) {
        die_usage(gai_strerror(rc), url);
    }
    memcpy(&config.address, found->ai_addr, found->ai_addrlen);
    config.address_len = found->ai_addrlen;
    config.family = found->ai_family;
    freeaddrinfo(found);
}

static int decimal_digits(unsigned long v)
{
    int digits = 1;
    while (v >= 10) {
        v /= 10;
        digits++;
    }
    return digits;
}

static void parse_arguments(int argc, char **argv)
{
    const char *url = NULL;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            exit(0);
        }
        const char *eq = strchr(arg, '=');
        if (strncmp(arg, "--", 2) != 0 || eq == NULL) {
            die_usage("expected --option=value", arg);
        }
        size_t name_len = (size_t)(eq - arg);
        const char *value = eq + 1;
#define OPTION(name) (name_len == sizeof(name) - 1 && strncmp(arg, name, name_len) == 0)
        if (OPTION("--url")) {
            url = value;
        } else if (OPTION("--connections")) {
            double n = parse_positive(value, arg);
            if (n != (double)(int)n || n > MAX_CONNECTIONS) {
                die_usage("--connections wants a whole number from 1 to 10000", value);
            }
            config.connections = (int)n;
        } else if (OPTION("--duration")) {
            config.duration_s = parse_positive(value, arg);
        } else if (OPTION("--timeout")) {
            config.timeout_ns = (uint64_t)(parse_positive(value, arg) * 1e9);
        } else if (OPTION("--nonce")) {
            if (strlen(value) == 0 || strlen(value) >= sizeof config.nonce) {
                die_usage("--nonce wants 1 to 63 characters", value);
            }
            for (const char *p = value; *p; p++) {
                /* Characters that need no escaping in JSON and read well in a registration. */
                if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.'
                      || *p == '_' || *p == '-')) {
                    die_usage("--nonce may hold only letters, digits, '.', '_' and '-'", value);
                }
            }
            strcpy(config.nonce, value);
        } else if (OPTION("--path")) {
            if (value[0] != '/' || strlen(value) > PATH_MAX_CHARS || strpbrk(value, " \r\n") != NULL) {
                die_usage("--path wants /PATH without spaces, at most 512 characters", value);
            }
            strcpy(config.plain_path, value);
        } else {
            die_usage("unknown option", arg);
        }
#undef OPTION
    }
    if (url == NULL) {
        die_usage("--url is required", NULL);
    }
    parse_url(url);
    if (config.nonce[0] == '\0') {
        snprintf(config.nonce, sizeof config.nonce, "%lx%x", (unsigned long)time(NULL), (unsigned)getpid());
    }
    /* B-<nonce>-<conn>-<seq> must stay within the application's limit on `number`. */
    size_t longest = 2 + strlen(config.nonce) + 1 + (size_t)decimal_digits((unsigned long)config.connections) + 1
                     + SEQ_RESERVED_DIGITS;
    if (config.plain_path[0] == '\0' && longest > NUMBER_MAX_CHARS) {
        fprintf(stderr,
                "bobbin-crud-load: --nonce is too long: B-<nonce>-<connection>-<sequence> must fit the %d characters\n"
                "the application accepts in `number` (room is kept for a %d-digit sequence); use at most %zu characters\n",
                NUMBER_MAX_CHARS, SEQ_RESERVED_DIGITS, strlen(config.nonce) - (longest - NUMBER_MAX_CHARS));
        exit(2);
    }
}

/* ---- main -------------------------------------------------------------------------------- */

static void on_stop_signal(int signal_number)
{
    (void)signal_number;
    stop_requested = 1;
}

int main(int argc, char **argv)
{
    parse_arguments(argc, argv);

    /* A write to a connection the server already closed must be an error, not a death. */
    signal(SIGPIPE, SIG_IGN);
    struct sigaction stop = {.sa_handler = on_stop_signal}; /* no SA_RESTART: wakes epoll_wait */
    sigemptyset(&stop.sa_mask);
    sigaction(SIGINT, &stop, NULL);
    sigaction(SIGTERM, &stop, NULL);

    epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd < 0) {
        perror("bobbin-crud-load: epoll_create1");
        return 1;
    }
    connections = calloc((size_t)config.connections, sizeof *connections);
    if (connections == NULL) {
        perror("bobbin-crud-load: calloc");
        return 1;
    }

    uint64_t start = now_ns();
    uint64_t end = start + (uint64_t)(config.duration_s * 1e9);
    for (int i = 0; i < config.connections; i++) {
        connections[i].fd = -1;
        connections[i].number = i + 1;
        open_connection(&connections[i], start);
    }

    struct epoll_event events[MAX_EVENTS];
    uint64_t now = start;
    uint64_t next_scan = start + SCAN_INTERVAL_NS;
    while (!stop_requested) {
        uint64_t wake = next_scan < end ? next_scan : end;
        int timeout_ms = wake > now ? (int)((wake - now + 999999) / 1000000) : 0;
        int n = epoll_wait(epoll_fd, events, MAX_EVENTS, timeout_ms);
        now = now_ns();
        if (n < 0 && errno != EINTR) {
            perror("bobbin-crud-load: epoll_wait");
            return 1;
        }
        if (now >= end) {
            break; /* answers that arrive after the end are not counted */
        }
        for (int i = 0; i < n; i++) {
            struct connection *c = events[i].data.ptr;
            switch (c->state) {
            case CONN_CONNECTING:
                finish_connect(c, now);
                break;
            case CONN_WRITING:
                continue_write(c, now);
                break;
            case CONN_READING:
                on_readable(c, now);
                break;
            case CONN_WAITING:
                break; /* closed earlier in this batch */
            }
        }
        if (now >= next_scan) {
            scan_connections(now);
            next_scan = now + SCAN_INTERVAL_NS;
        }
    }
    double seconds = (double)(now - start) / 1e9;

    uint64_t socket_errors = 0;
    for (int k = 0; k < ERR_KINDS; k++) {
        socket_errors += stats.errors[k];
    }
    printf("RESULT {\"cycles\":%llu,\"failed_cycles\":%llu,\"seconds\":%.3f,\"requests\":%llu,\"socket_errors\":%llu,"
           "\"non2xx\":%llu,\"p50_ms\":%.3f,\"p99_ms\":%.3f}\n",
           (unsigned long long)stats.cycles, (unsigned long long)stats.failed_cycles, seconds,
           (unsigned long long)stats.requests, (unsigned long long)socket_errors, (unsigned long long)stats.non2xx,
           histogram_percentile_us(50) / 1000.0, histogram_percentile_us(99) / 1000.0);
    fflush(stdout);
    /* The breakdown the RESULT line has no room for (wrk's format), for whoever reads stderr. */
    for (int k = 0; k < ERR_KINDS; k++) {
        if (stats.errors[k] > 0) {
            fprintf(stderr, "bobbin-crud-load: %llu %s errors; first: %s\n", (unsigned long long)stats.errors[k],
                    error_names[k], stats.first_error[k]);
        }
    }
    for (int i = 0; i < config.connections; i++) {
        close_socket(&connections[i]);
    }
    free(connections);
    close(epoll_fd);
    return 0;
}
