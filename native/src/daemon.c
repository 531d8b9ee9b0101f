#include "bobbin_ipc.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

enum tag_kind { TAG_LISTEN_UNIX, TAG_LISTEN_TCP, TAG_SIGNAL, TAG_CONN, TAG_SHM };

/* Output a slow reader may leave queued before we stop reading its requests. */
#define OUT_HIGH_WATER (4u * 1024u * 1024u)

struct tag {
    enum tag_kind kind;
};

struct shm_channel;

struct conn {
    struct tag tag;
    int fd;
    int is_unix;
    int reading_paused;
    int want_out;
    int closed;
    char label[96];
    bipc_decoder dec;
    bipc_outbuf out;
    struct shm_channel *shm;
    struct conn *prev, *next;
};

struct shm_channel {
    struct tag tag;
    struct conn *owner;
    char name[128];
    int name_linked;
    int fd;
    unsigned char *base;
    size_t size;
    bipc_shm_header *hdr;
    unsigned char *req_ring;
    unsigned char *resp_ring;
    uint32_t req_cap, resp_cap;
    int doorbell_in;  /* client rings after producing requests */
    int doorbell_out; /* daemon rings after producing responses */
    int stalled;
};

struct daemon {
    const bipc_daemon_config *cfg;
    int ep;
    int unix_fd, tcp_fd, sig_fd;
    struct tag unix_tag, tcp_tag, sig_tag;
    struct conn *conns;
    struct conn *graveyard; /* closed in this epoll batch; freed after it */
    unsigned next_conn, next_shm;
    int stalled_channels;
    char prefix[64];
    uid_t own_uid; /* always allowed to connect over the unix socket */
};

static void logf_(const struct daemon *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(const struct daemon *d, const char *fmt, ...)
{
    if (d->cfg->quiet) {
        return;
    }
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "bobbin-ipcd: %s\n", line);
}

void bipc_shm_prefix(const char *unix_path, char *out, size_t cap)
{
    char abs[4096];
    if (unix_path[0] == '/') {
        snprintf(abs, sizeof(abs), "%s", unix_path);
    } else {
        char cwd[2048];
        if (getcwd(cwd, sizeof(cwd)) == NULL) {
            cwd[0] = '\0';
        }
        snprintf(abs, sizeof(abs), "%s/%s", cwd, unix_path);
    }
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)abs; *p; p++) {
        h ^= *p;
        h *= 1099511628211ull;
    }
    snprintf(out, cap, "/bobbin-ipc-%016llx-", (unsigned long long)h);
}

int bipc_remove_stale_shm(const char *unix_path)
{
    char prefix[64];
    bipc_shm_prefix(unix_path, prefix, sizeof(prefix));
    DIR *dir = opendir("/dev/shm");
    if (dir == NULL) {
        return 0;
    }
    int removed = 0;
    size_t plen = strlen(prefix) - 1; /* without the leading '/' */
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (strncmp(e->d_name, prefix + 1, plen) == 0) {
            char name[300];
            snprintf(name, sizeof(name), "/%s", e->d_name);
            if (shm_unlink(name) == 0) {
                removed++;
            }
        }
    }
    closedir(dir);
    return removed;
}

static int ep_add(struct daemon *d, int fd, uint32_t events, void *ptr)
{
    struct epoll_event ev = {.events = events, .data.ptr = ptr};
    return epoll_ctl(d->ep, EPOLL_CTL_ADD, fd, &ev);
}

static void ep_mod(struct daemon *d, int fd, uint32_t events, void *ptr)
{
    struct epoll_event ev = {.events = events, .data.ptr = ptr};
    epoll_ctl(d->ep, EPOLL_CTL_MOD, fd, &ev);
}

static void shm_destroy(struct daemon *d, struct shm_channel *s)
{
    if (s == NULL) {
        return;
    }
    if (s->stalled) {
        d->stalled_channels--;
    }
    if (s->doorbell_in >= 0) {
        epoll_ctl(d->ep, EPOLL_CTL_DEL, s->doorbell_in, NULL);
        close(s->doorbell_in);
    }
    if (s->doorbell_out >= 0) {
        close(s->doorbell_out);
    }
    if (s->base != NULL) {
        munmap(s->base, s->size);
    }
    if (s->fd >= 0) {
        close(s->fd);
    }
    if (s->name_linked) {
        shm_unlink(s->name);
    }
    s->doorbell_in = s->doorbell_out = s->fd = -1;
    s->base = NULL;
    s->name_linked = 0;
}

static void conn_close(struct daemon *d, struct conn *c, const char *reason)
{
    if (c->closed) {
        return;
    }
    c->closed = 1;
    if (reason != NULL) {
        logf_(d, "client %s disconnected: %s", c->label, reason);
    }
    shm_destroy(d, c->shm);
    epoll_ctl(d->ep, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    bipc_decoder_free(&c->dec);
    bipc_outbuf_free(&c->out);
    if (c->prev) {
        c->prev->next = c->next;
    } else {
        d->conns = c->next;
    }
    if (c->next) {
        c->next->prev = c->prev;
    }
    /* Events of this epoll batch may still point at c or its channel. */
    c->next = d->graveyard;
    d->graveyard = c;
}

static void bury(struct daemon *d)
{
    while (d->graveyard != NULL) {
        struct conn *c = d->graveyard;
        d->graveyard = c->next;
        free(c->shm);
        free(c);
    }
}

static void conn_update_events(struct daemon *d, struct conn *c)
{
    int want_out = c->out.len > c->out.pos;
    int pause = (c->out.len - c->out.pos) > OUT_HIGH_WATER;
    if (want_out != c->want_out || pause != c->reading_paused) {
        c->want_out = want_out;
        c->reading_paused = pause;
        ep_mod(d, c->fd, (pause ? 0u : EPOLLIN) | (want_out ? EPOLLOUT : 0u) | EPOLLRDHUP, c);
    }
}

/* Writes everything queued in one call; returns -1 when the peer is gone. */
static int conn_flush(struct daemon *d, struct conn *c)
{
    while (c->out.len > c->out.pos) {
        ssize_t n = send(c->fd, c->out.buf + c->out.pos, c->out.len - c->out.pos, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                break;
            }
            return -1;
        }
        c->out.pos += (size_t)n;
    }
    if (c->out.pos == c->out.len) {
        c->out.pos = c->out.len = 0;
    }
    conn_update_events(d, c);
    return 0;
}

static int shm_process(struct daemon *d, struct shm_channel *s, const char **error);

static int handle_shm_open(struct daemon *d, struct conn *c, const unsigned char *p, uint32_t n, const char **error)
{
    if (!c->is_unix) {
        *error = "shared-memory handshake is only offered on the unix socket";
        return -1;
    }
    if (c->shm != NULL) {
        *error = "second shared-memory handshake on one connection";
        return -1;
    }
    uint32_t cap = BIPC_SHM_DEFAULT_RING;
    if (n >= 5) {
        cap = bipc_get_u32(p + 1);
        if (cap == 0) {
            cap = BIPC_SHM_DEFAULT_RING;
        }
    }
    if (cap < BIPC_SHM_MIN_RING) {
        cap = BIPC_SHM_MIN_RING;
    }
    if (cap > BIPC_SHM_MAX_RING) {
        cap = BIPC_SHM_MAX_RING;
    }
    cap = (cap + 4095u) & ~4095u;

    struct shm_channel *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        *error = "out of memory";
        return -1;
    }
    s->tag.kind = TAG_SHM;
    s->owner = c;
    s->fd = s->doorbell_in = s->doorbell_out = -1;
    c->shm = s;
    s->req_cap = s->resp_cap = cap;
    s->size = BIPC_SHM_DATA_OFFSET + (size_t)cap * 2;
    snprintf(s->name, sizeof(s->name), "%s%d-%u", d->prefix, (int)getpid(), ++d->next_shm);
    s->fd = shm_open(s->name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
    if (s->fd < 0) {
        *error = "shm_open failed";
        return -1;
    }
    s->name_linked = 1;
    if (ftruncate(s->fd, (off_t)s->size) != 0) {
        *error = "ftruncate of the shared-memory segment failed";
        return -1;
    }
    s->base = mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
    if (s->base == MAP_FAILED) {
        s->base = NULL;
        *error = "mmap failed";
        return -1;
    }
    s->hdr = (bipc_shm_header *)s->base;
    s->req_ring = s->base + BIPC_SHM_DATA_OFFSET;
    s->resp_ring = s->req_ring + cap;
    s->hdr->magic = BIPC_SHM_MAGIC;
    s->hdr->version = BIPC_SHM_VERSION;
    s->hdr->req_capacity = cap;
    s->hdr->resp_capacity = cap;
    s->hdr->daemon_cpu = BIPC_SHM_CPU_UNKNOWN;
    s->doorbell_in = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    s->doorbell_out = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (s->doorbell_in < 0 || s->doorbell_out < 0) {
        *error = "eventfd failed";
        return -1;
    }
    if (ep_add(d, s->doorbell_in, EPOLLIN, s) != 0) {
        *error = "epoll_ctl failed";
        return -1;
    }

    /* Reply (a control frame): op, status, req cap, resp cap, segment size, name length, name. */
    unsigned char msg[256];
    size_t name_len = strlen(s->name);
    uint32_t body = 1 + 1 + 4 + 4 + 4 + 2 + (uint32_t)name_len;
    bipc_put_u32(msg, BIPC_CONTROL_FLAG | body);
    msg[4] = BIPC_OP_SHM_OPEN;
    msg[5] = 0;
    bipc_put_u32(msg + 6, cap);
    bipc_put_u32(msg + 10, cap);
    bipc_put_u32(msg + 14, (uint32_t)s->size);
    msg[18] = (unsigned char)name_len;
    msg[19] = (unsigned char)(name_len >> 8);
    memcpy(msg + 20, s->name, name_len);

    if (conn_flush(d, c) != 0 || c->out.len > c->out.pos) {
        *error = "could not send the handshake reply (output backlog)";
        return -1;
    }
    struct iovec iov = {.iov_base = msg, .iov_len = BIPC_HEADER_SIZE + body};
    union {
        char buf[CMSG_SPACE(2 * sizeof(int))];
        struct cmsghdr align;
    } ctrl;
    memset(&ctrl, 0, sizeof(ctrl));
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctrl.buf, .msg_controllen = sizeof(ctrl.buf)};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(2 * sizeof(int));
    int fds[2] = {s->doorbell_in, s->doorbell_out};
    memcpy(CMSG_DATA(cm), fds, sizeof(fds));
    ssize_t sent = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
    if (sent != (ssize_t)iov.iov_len) {
        *error = "could not send the handshake reply";
        return -1;
    }
    logf_(d, "client %s opened shared memory %s (2 x %u bytes)", c->label, s->name, cap);
    return 0;
}

static int handle_control(struct daemon *d, struct conn *c, const unsigned char *p, uint32_t n, const char **error)
{
    if (n < 1) {
        *error = "empty control frame";
        return -1;
    }
    switch (p[0]) {
    case BIPC_OP_SHM_OPEN:
        return handle_shm_open(d, c, p, n, error);
    case BIPC_OP_SHM_MAPPED: /* the client mapped the segment: its name is no longer needed */
        if (c->shm == NULL) {
            *error = "shm-mapped message without a shared-memory channel";
            return -1;
        }
        if (c->shm->name_linked) {
            shm_unlink(c->shm->name);
            c->shm->name_linked = 0;
        }
        return 0;
    default:
        *error = "unknown control opcode";
        return -1;
    }
}

static void conn_read(struct daemon *d, struct conn *c)
{
    char reason[160];
    for (int round = 0; round < 16; round++) {
        size_t avail;
        unsigned char *space = bipc_decoder_space(&c->dec, 4096, &avail);
        if (space == NULL) {
            conn_close(d, c, "out of memory");
            return;
        }
        ssize_t n = recv(c->fd, space, avail, 0);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                break;
            }
            snprintf(reason, sizeof(reason), "read error: %s", strerror(errno));
            conn_close(d, c, reason);
            return;
        }
        if (n == 0) {
            size_t pending = bipc_decoder_pending(&c->dec);
            if (pending > 0) {
                snprintf(reason, sizeof(reason), "truncated frame (%zu bytes of an incomplete frame at end of stream)", pending);
                conn_close(d, c, reason);
            } else {
                conn_flush(d, c); /* best effort: answers to a client that half-closed */
                conn_close(d, c, NULL);
            }
            return;
        }
        bipc_decoder_commit(&c->dec, (size_t)n);
        for (;;) {
            uint32_t plen, declared;
            const unsigned char *payload;
            bipc_decode_result r = bipc_decoder_next(&c->dec, &payload, &plen, &declared);
            if (r == BIPC_DECODE_NEED_MORE) {
                break;
            }
            if (r == BIPC_DECODE_TOO_LARGE) {
                snprintf(reason, sizeof(reason), "frame of %u bytes exceeds --max-frame=%u", declared, c->dec.max_frame);
                conn_close(d, c, reason);
                return;
            }
            if (r == BIPC_DECODE_CONTROL_TOO_LARGE) {
                snprintf(reason, sizeof(reason), "garbage: control frame of %u bytes (at most %u)", declared, BIPC_CONTROL_MAX);
                conn_close(d, c, reason);
                return;
            }
            if (r == BIPC_DECODE_CONTROL) {
                const char *err = "control frame rejected";
                if (!c->is_unix) {
                    conn_close(d, c, "control frame over TCP (control frames are for the unix socket only)");
                    return;
                }
                if (handle_control(d, c, payload, plen, &err) != 0) {
                    conn_close(d, c, err);
                    return;
                }
                continue;
            }
            /* Responses are queued in request order: that order is the only match a client has. */
            uint32_t rlen = bipc_counter_response_size(plen);
            unsigned char *out = bipc_outbuf_frame(&c->out, rlen);
            if (out == NULL) {
                conn_close(d, c, "out of memory");
                return;
            }
            bipc_counter(payload, plen, out, rlen);
        }
        if ((size_t)n < avail) {
            break; /* the socket is drained: skip the extra EAGAIN read */
        }
    }
    if (conn_flush(d, c) != 0) {
        conn_close(d, c, "peer gone while writing");
    }
}

/* SO_PEERCRED: the daemon's own uid, a listed uid, or (with --unix-group) that group. The socket's
 * mode keeps others out already; this holds when the mode was opened up or the group is wide. */
static int peer_allowed(const struct daemon *d, int fd, char *why, size_t cap)
{
    struct ucred cred;
    socklen_t len = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
        snprintf(why, cap, "SO_PEERCRED failed: %s", strerror(errno));
        return 0;
    }
    if (cred.uid == d->own_uid || (d->cfg->has_group && cred.gid == d->cfg->unix_gid)) {
        return 1;
    }
    for (int i = 0; i < d->cfg->allow_uid_count; i++) {
        if (d->cfg->allow_uids[i] == cred.uid) {
            return 1;
        }
    }
    snprintf(why, cap, "uid %u (pid %d) is not allowed (--allow-uid)", (unsigned)cred.uid, (int)cred.pid);
    return 0;
}

static void accept_all(struct daemon *d, int lfd, int is_unix)
{
    for (;;) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        int fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) {
                continue;
            }
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                logf_(d, "accept failed: %s", strerror(errno));
            }
            return;
        }
        if (is_unix) {
            char why[96];
            if (!peer_allowed(d, fd, why, sizeof(why))) {
                logf_(d, "refused a unix connection: %s", why);
                close(fd);
                continue;
            }
        } else {
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        }
        struct conn *c = calloc(1, sizeof(*c));
        if (c == NULL || bipc_decoder_init(&c->dec, d->cfg->max_frame) != 0) {
            free(c);
            close(fd);
            logf_(d, "out of memory on accept");
            continue;
        }
        c->tag.kind = TAG_CONN;
        c->fd = fd;
        c->is_unix = is_unix;
        if (is_unix) {
            snprintf(c->label, sizeof(c->label), "unix#%u", ++d->next_conn);
        } else {
            char host[INET_ADDRSTRLEN] = "?";
            struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
            inet_ntop(AF_INET, &sin->sin_addr, host, sizeof(host));
            snprintf(c->label, sizeof(c->label), "tcp#%u(%s:%d)", ++d->next_conn, host, ntohs(sin->sin_port));
        }
        c->next = d->conns;
        if (d->conns) {
            d->conns->prev = c;
        }
        d->conns = c;
        if (ep_add(d, fd, EPOLLIN | EPOLLRDHUP, c) != 0) {
            conn_close(d, c, "epoll_ctl failed");
        }
    }
}

/*
 * Drains the request ring into the response ring. Returns 1 when it did work, 0 when idle,
 * -1 on a protocol violation (the client wrote garbage into its ring).
 */
static int shm_process(struct daemon *d, struct shm_channel *s, const char **error)
{
    bipc_shm_header *h = s->hdr;
    uint64_t head = h->req_head; /* only we write it */
    uint64_t rtail = h->resp_tail;
    int did = 0;
    for (;;) {
        uint64_t tail = __atomic_load_n(&h->req_tail, __ATOMIC_ACQUIRE);
        if (tail == head) {
            break;
        }
        if (tail - head > s->req_cap || (tail & 7u) != 0) {
            *error = "garbage: request-ring tail out of range";
            return -1;
        }
        while (head != tail) {
            uint32_t off = (uint32_t)(head % s->req_cap);
            uint32_t len = bipc_get_u32(s->req_ring + off);
            if (len == BIPC_SHM_WRAP) {
                head += s->req_cap - off;
                continue;
            }
            if (len < BIPC_ID_SIZE || (uint64_t)off + BIPC_HEADER_SIZE + len > s->req_cap ||
                bipc_record_size(len) > tail - head) {
                *error = "garbage: malformed record in the request ring";
                return -1;
            }
            if (len > d->cfg->max_frame) {
                *error = "record exceeds --max-frame";
                return -1;
            }
            uint32_t id = bipc_get_u32(s->req_ring + off + BIPC_HEADER_SIZE);
            uint32_t plen = len - BIPC_ID_SIZE;
            uint32_t rlen = bipc_counter_response_size(plen);
            uint32_t rrec = bipc_record_size(BIPC_ID_SIZE + rlen);
            if (rrec > s->resp_cap) {
                *error = "response larger than the response ring";
                return -1;
            }
            uint64_t rhead = __atomic_load_n(&h->resp_head, __ATOMIC_ACQUIRE);
            if (rtail - rhead > s->resp_cap) {
                *error = "garbage: response-ring head out of range";
                return -1;
            }
            uint32_t roff = (uint32_t)(rtail % s->resp_cap);
            uint64_t need = rrec + (s->resp_cap - roff < rrec ? s->resp_cap - roff : 0u);
            if (s->resp_cap - (rtail - rhead) < need) {
                /* The client has not consumed its responses yet: stop and retry later. */
                if (!s->stalled) {
                    s->stalled = 1;
                    d->stalled_channels++;
                }
                __atomic_store_n(&h->daemon_stalled, 1u, __ATOMIC_SEQ_CST);
                goto publish;
            }
            if (s->resp_cap - roff < rrec) {
                bipc_put_u32(s->resp_ring + roff, BIPC_SHM_WRAP);
                rtail += s->resp_cap - roff;
                roff = 0;
            }
            unsigned char *out = s->resp_ring + roff;
            bipc_put_u32(out, BIPC_ID_SIZE + rlen);
            bipc_put_u32(out + BIPC_HEADER_SIZE, id);
            bipc_counter(s->req_ring + off + BIPC_HEADER_SIZE + BIPC_ID_SIZE, plen, out + 8, rlen);
            rtail += rrec;
            head += bipc_record_size(len);
            did = 1;
        }
    }
    if (s->stalled) {
        s->stalled = 0;
        d->stalled_channels--;
        __atomic_store_n(&h->daemon_stalled, 0u, __ATOMIC_RELAXED);
    }
publish:
    if (did) {
        __atomic_store_n(&h->resp_tail, rtail, __ATOMIC_RELEASE);
        __atomic_store_n(&h->req_head, head, __ATOMIC_RELEASE);
        uint64_t one = 1;
        if (write(s->doorbell_out, &one, sizeof(one)) < 0 && errno != EAGAIN) {
            *error = "doorbell write failed";
            return -1;
        }
    }
    return did;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void shm_doorbell(struct daemon *d, struct shm_channel *s)
{
    uint64_t v;
    while (read(s->doorbell_in, &v, sizeof(v)) < 0 && errno == EINTR) {
    }
    int cpu = sched_getcpu();
    __atomic_store_n(&s->hdr->daemon_cpu, cpu < 0 ? BIPC_SHM_CPU_UNKNOWN : (uint32_t)cpu, __ATOMIC_RELAXED);
    const char *err = NULL;
    int r = shm_process(d, s, &err);
    if (r > 0 && d->cfg->spin_us > 0) {
        /* Brief bounded spin: a client in a tight loop sends its next request within µs. */
        uint64_t until = now_ns() + (uint64_t)d->cfg->spin_us * 1000u;
        while (r >= 0 && now_ns() < until) {
            r = shm_process(d, s, &err);
            if (r > 0) {
                until = now_ns() + (uint64_t)d->cfg->spin_us * 1000u;
            }
        }
    }
    if (r < 0) {
        conn_close(d, s->owner, err);
    }
}

static void retry_stalled(struct daemon *d)
{
    struct conn *c = d->conns;
    while (c != NULL) {
        struct conn *next = c->next;
        if (c->shm != NULL && c->shm->stalled) {
            const char *err = NULL;
            if (shm_process(d, c->shm, &err) < 0) {
                conn_close(d, c, err);
            }
        }
        c = next;
    }
}

static int socket_in_use(const char *path)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return 0;
    }
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
    int r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
    close(fd);
    return r == 0;
}

/* The socket's directory, when it does not exist yet: made 0700 (0750 of the group). An existing
 * one is the operator's: it is left as it is (docs/IPC.md). */
static int make_private_directory(const bipc_daemon_config *cfg, const char *path)
{
    char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL || slash == dir) {
        return 0; /* the working directory, or / */
    }
    *slash = '\0';
    struct stat st;
    if (stat(dir, &st) == 0) {
        return 0;
    }
    mode_t mode = cfg->has_group ? 0750 : 0700;
    mode_t old_umask = umask(0077);
    int made = mkdir(dir, mode) == 0;
    umask(old_umask);
    if (!made || chmod(dir, mode) != 0 || (cfg->has_group && chown(dir, (uid_t)-1, cfg->unix_gid) != 0)) {
        fprintf(stderr, "bobbin-ipcd: cannot make the directory %s: %s\n", dir, strerror(errno));
        return -1;
    }
    return 0;
}

static int listen_unix(struct daemon *d, const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof(sa.sun_path)) {
        fprintf(stderr, "bobbin-ipcd: unix socket path too long: %s\n", path);
        return -1;
    }
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
            fprintf(stderr, "bobbin-ipcd: %s exists and is not a socket\n", path);
            return -1;
        }
        if (socket_in_use(path)) {
            fprintf(stderr, "bobbin-ipcd: another daemon is listening on %s\n", path);
            return -1;
        }
        unlink(path); /* left by a crashed instance */
    }
    if (make_private_directory(d->cfg, path) != 0) {
        return -1;
    }
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    /* Whoever can connect can map shared memory through the daemon: the socket is born without
     * group or other bits whatever the umask (no moment at 0777 for a chmod to close), then gets
     * its mode, and its group when one is configured. */
    mode_t old_umask = umask(0177);
    int bound = fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
    umask(old_umask);
    mode_t mode = d->cfg->has_group ? 0660 : 0600;
    if (!bound || (d->cfg->has_group && chown(path, (uid_t)-1, d->cfg->unix_gid) != 0) || chmod(path, mode) != 0 ||
        listen(fd, 512) != 0) {
        fprintf(stderr, "bobbin-ipcd: cannot listen on %s: %s\n", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        if (bound) {
            unlink(path);
        }
        return -1;
    }
    d->unix_fd = fd;
    return 0;
}

static int listen_tcp(struct daemon *d, const char *host, int port, int *bound_port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
        fprintf(stderr, "bobbin-ipcd: bad TCP host %s (IPv4 address expected)\n", host);
        return -1;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd >= 0) {
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    }
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 512) != 0) {
        fprintf(stderr, "bobbin-ipcd: cannot listen on %s:%d: %s\n", host, port, strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    socklen_t sl = sizeof(sa);
    getsockname(fd, (struct sockaddr *)&sa, &sl);
    *bound_port = ntohs(sa.sin_port);
    d->tcp_fd = fd;
    return 0;
}

int bipc_daemon_run(const bipc_daemon_config *cfg)
{
    struct daemon dd;
    struct daemon *d = &dd;
    memset(d, 0, sizeof(*d));
    d->cfg = cfg;
    d->own_uid = geteuid();
    d->unix_fd = d->tcp_fd = d->sig_fd = -1;
    d->unix_tag.kind = TAG_LISTEN_UNIX;
    d->tcp_tag.kind = TAG_LISTEN_TCP;
    d->sig_tag.kind = TAG_SIGNAL;
    bipc_shm_prefix(cfg->unix_path, d->prefix, sizeof(d->prefix));

    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    signal(SIGPIPE, SIG_IGN);

    if (listen_unix(d, cfg->unix_path) != 0) {
        return 1;
    }
    int stale = bipc_remove_stale_shm(cfg->unix_path);
    if (stale > 0) {
        logf_(d, "removed %d stale shared-memory object(s) of a previous instance", stale);
    }
    int tcp_port = -1;
    if (cfg->tcp_port >= 0 && listen_tcp(d, cfg->tcp_host, cfg->tcp_port, &tcp_port) != 0) {
        close(d->unix_fd);
        unlink(cfg->unix_path);
        return 1;
    }
    d->sig_fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    d->ep = epoll_create1(EPOLL_CLOEXEC);
    if (d->sig_fd < 0 || d->ep < 0) {
        fprintf(stderr, "bobbin-ipcd: signalfd/epoll_create1 failed: %s\n", strerror(errno));
        return 1;
    }
    ep_add(d, d->unix_fd, EPOLLIN, &d->unix_tag);
    if (d->tcp_fd >= 0) {
        ep_add(d, d->tcp_fd, EPOLLIN, &d->tcp_tag);
    }
    ep_add(d, d->sig_fd, EPOLLIN, &d->sig_tag);
    if (tcp_port >= 0) {
        fprintf(stderr, "bobbin-ipcd: ready unix=%s tcp=%s:%d pid=%d\n", cfg->unix_path, cfg->tcp_host, tcp_port, (int)getpid());
    } else {
        fprintf(stderr, "bobbin-ipcd: ready unix=%s pid=%d\n", cfg->unix_path, (int)getpid());
    }

    int running = 1;
    struct epoll_event events[256];
    while (running) {
        int n = epoll_wait(d->ep, events, 256, d->stalled_channels > 0 ? 1 : -1);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            fprintf(stderr, "bobbin-ipcd: epoll_wait failed: %s\n", strerror(errno));
            break;
        }
        for (int i = 0; i < n; i++) {
            struct tag *t = events[i].data.ptr;
            switch (t->kind) {
            case TAG_LISTEN_UNIX:
                accept_all(d, d->unix_fd, 1);
                break;
            case TAG_LISTEN_TCP:
                accept_all(d, d->tcp_fd, 0);
                break;
            case TAG_SIGNAL: {
                struct signalfd_siginfo si;
                if (read(d->sig_fd, &si, sizeof(si)) > 0) {
                    logf_(d, "signal %u: stopping", si.ssi_signo);
                }
                running = 0;
                break;
            }
            case TAG_CONN: {
                struct conn *c = (struct conn *)t;
                if (c->closed) {
                    break;
                }
                if (events[i].events & EPOLLOUT) {
                    if (conn_flush(d, c) != 0) {
                        conn_close(d, c, "peer gone while writing");
                        break;
                    }
                }
                if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR | EPOLLRDHUP)) {
                    conn_read(d, c);
                }
                break;
            }
            case TAG_SHM: {
                struct shm_channel *s = (struct shm_channel *)t;
                if (!s->owner->closed) {
                    shm_doorbell(d, s);
                }
                break;
            }
            }
        }
        if (d->stalled_channels > 0) {
            retry_stalled(d);
        }
        bury(d);
    }

    while (d->conns != NULL) {
        conn_close(d, d->conns, NULL);
    }
    bury(d);
    close(d->unix_fd);
    unlink(cfg->unix_path);
    if (d->tcp_fd >= 0) {
        close(d->tcp_fd);
    }
    bipc_remove_stale_shm(cfg->unix_path);
    close(d->sig_fd);
    close(d->ep);
    logf_(d, "stopped");
    return 0;
}
