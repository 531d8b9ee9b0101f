/* C tests for the Bobbin IPC library and daemon: ./bobbin-ipc-tests path/to/bobbin-ipcd */
#include "bobbin_ipc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <grp.h>
#include <time.h>
#include <unistd.h>

static int failures;
static int checks;
static const char *daemon_path;

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        checks++;                                                               \
        if (!(cond)) {                                                          \
            failures++;                                                         \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);     \
            fprintf(stderr, __VA_ARGS__);                                       \
            fprintf(stderr, "\n");                                              \
        }                                                                       \
    } while (0)

static void sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ---------- pure library tests ---------- */

static void test_decoder_reassembles_frames_fed_byte_by_byte(void)
{
    bipc_decoder d;
    bipc_decoder_init(&d, 1024);
    unsigned char wire[64];
    bipc_put_u32(wire, 5);
    memcpy(wire + 4, "hello", 5);
    bipc_put_u32(wire + 9, 0); /* an empty frame is a valid request */
    bipc_put_u32(wire + 13, BIPC_CONTROL_FLAG | 2u);
    wire[17] = BIPC_OP_SHM_MAPPED;
    wire[18] = 9;
    int frames = 0;
    for (size_t i = 0; i < 19; i++) {
        size_t avail;
        unsigned char *sp = bipc_decoder_space(&d, 1, &avail);
        sp[0] = wire[i];
        bipc_decoder_commit(&d, 1);
        uint32_t plen, decl;
        const unsigned char *p;
        bipc_decode_result r;
        while ((r = bipc_decoder_next(&d, &p, &plen, &decl)) > 0) {
            frames++;
            if (frames == 1) {
                CHECK(r == BIPC_DECODE_FRAME && plen == 5 && memcmp(p, "hello", 5) == 0, "first frame len=%u", plen);
            } else if (frames == 2) {
                CHECK(r == BIPC_DECODE_FRAME && plen == 0, "second frame len=%u", plen);
            } else {
                CHECK(r == BIPC_DECODE_CONTROL && plen == 2 && p[0] == BIPC_OP_SHM_MAPPED && p[1] == 9, "control len=%u", plen);
            }
        }
    }
    CHECK(frames == 3, "got %d frames", frames);
    CHECK(bipc_decoder_pending(&d) == 0, "pending %zu", bipc_decoder_pending(&d));
    bipc_decoder_free(&d);
}

static void test_decoder_rejects_oversized_frames_and_control_frames(void)
{
    bipc_decoder d;
    bipc_decoder_init(&d, 100);
    size_t avail;
    unsigned char *sp = bipc_decoder_space(&d, 8, &avail);
    bipc_put_u32(sp, 101);
    bipc_decoder_commit(&d, 4);
    uint32_t plen, decl;
    const unsigned char *p;
    CHECK(bipc_decoder_next(&d, &p, &plen, &decl) == BIPC_DECODE_TOO_LARGE && decl == 101, "too large");
    bipc_decoder_free(&d);
    bipc_decoder_init(&d, 100);
    sp = bipc_decoder_space(&d, 8, &avail);
    bipc_put_u32(sp, BIPC_CONTROL_FLAG | (BIPC_CONTROL_MAX + 1u));
    bipc_decoder_commit(&d, 4);
    CHECK(bipc_decoder_next(&d, &p, &plen, &decl) == BIPC_DECODE_CONTROL_TOO_LARGE && decl == BIPC_CONTROL_MAX + 1u,
          "control too large");
    bipc_decoder_free(&d);
    /* A frame of max_frame bytes is accepted (the buffer grows to hold it). */
    bipc_decoder_init(&d, 100000);
    sp = bipc_decoder_space(&d, 4, &avail);
    bipc_put_u32(sp, 100000);
    bipc_decoder_commit(&d, 4);
    size_t filled = 0;
    while (filled < 100000) {
        sp = bipc_decoder_space(&d, 100000 - filled, &avail);
        size_t take = avail < 100000 - filled ? avail : 100000 - filled;
        memset(sp, 3, take);
        bipc_decoder_commit(&d, take);
        filled += take;
    }
    CHECK(bipc_decoder_next(&d, &p, &plen, &decl) == BIPC_DECODE_FRAME && plen == 100000, "frame of max_frame bytes");
    bipc_decoder_free(&d);
}

static void test_counter_folds_byte_counts_into_the_response(void)
{
    unsigned char in[16] = {0, 0, 1, 2, 3, 3, 3, 255, 8, 8, 8, 8, 8, 8, 8, 8};
    unsigned char out[2];
    bipc_counter(in, 16, out, 2);
    /* even values: 0,0,2,8x8 = 11; odd values: 1,3,3,3,255 = 5 */
    CHECK(out[0] == 11 && out[1] == 5, "out=%u,%u", out[0], out[1]);
    CHECK(bipc_counter_response_size(0) == 1 && bipc_counter_response_size(7) == 1 &&
              bipc_counter_response_size(16) == 2 && bipc_counter_response_size(2048) == 256,
          "response sizes");
    unsigned char big[300];
    unsigned char many[2400];
    memset(many, 7, sizeof(many));
    bipc_counter(many, sizeof(many), big, sizeof(big));
    CHECK(big[7] == (unsigned char)2400 && big[6] == 0 && big[299] == 0, "big[7]=%u", big[7]);
}

/* The definition itself, one division per value: what the fast bipc_counter must match. */
static void reference_counter(const unsigned char *in, uint32_t n, unsigned char *out, uint32_t out_len)
{
    uint32_t counts[256] = {0};
    for (uint32_t i = 0; i < n; i++) {
        counts[in[i]]++;
    }
    memset(out, 0, out_len);
    for (uint32_t v = 0; v < 256; v++) {
        if (out_len >= 256 || v < out_len) {
            out[v] = (unsigned char)(out[v] + counts[v]);
        } else {
            out[v % out_len] = (unsigned char)(out[v % out_len] + counts[v]);
        }
    }
}

static void test_counter_matches_the_definition_for_every_size_up_to_5000(void)
{
    static unsigned char in[5000], got[625], want[625];
    int bad = 0;
    for (uint32_t n = 0; n <= sizeof(in); n++) {
        for (uint32_t i = 0; i < n; i++) {
            /* Long runs of one value too: they overflow 8-bit counters many times. */
            in[i] = (n % 3 == 0) ? (unsigned char)(i / 97) : (unsigned char)random();
        }
        uint32_t out_len = bipc_counter_response_size(n);
        bipc_counter(in, n, got, out_len);
        reference_counter(in, n, want, out_len);
        if (memcmp(got, want, out_len) != 0) {
            bad++;
        }
    }
    CHECK(bad == 0, "%d sizes differ from the definition", bad);
}

/* ---------- daemon tests ---------- */

typedef struct {
    pid_t pid;
    char sock[108];
    int port;
} daemon_proc;

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    bind(fd, (struct sockaddr *)&sa, sizeof(sa));
    socklen_t sl = sizeof(sa);
    getsockname(fd, (struct sockaddr *)&sa, &sl);
    close(fd);
    return ntohs(sa.sin_port);
}

static int daemon_start_on(daemon_proc *dp, const char *sock, const char *extra)
{
    snprintf(dp->sock, sizeof(dp->sock), "%s", sock);
    dp->port = free_port();
    dp->pid = fork();
    if (dp->pid == 0) {
        char u[160], t[64];
        snprintf(u, sizeof(u), "--unix=%s", sock);
        snprintf(t, sizeof(t), "--tcp=127.0.0.1:%d", dp->port);
        int devnull = open("/dev/null", O_WRONLY);
        if (getenv("BOBBIN_IPC_TEST_VERBOSE") == NULL) {
            dup2(devnull, 2);
        }
        execl(daemon_path, daemon_path, u, t, extra ? extra : "--max-frame=65536", (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 500; i++) {
        bipc_client c;
        if (bipc_client_connect_unix(&c, sock) == 0) {
            bipc_client_close(&c);
            return 0;
        }
        sleep_ms(10);
    }
    return -1;
}

static int daemon_start(daemon_proc *dp)
{
    char sock[108];
    snprintf(sock, sizeof(sock), "/tmp/bobbin-ipc-test-%d-%ld.sock", (int)getpid(), (long)random());
    return daemon_start_on(dp, sock, NULL);
}

static int daemon_stop(daemon_proc *dp, int sig)
{
    kill(dp->pid, sig);
    int status = 0;
    waitpid(dp->pid, &status, 0);
    return status;
}

static int shm_exists(const char *name)
{
    char path[256];
    snprintf(path, sizeof(path), "/dev/shm%s", name);
    struct stat st;
    return stat(path, &st) == 0;
}

static int count_shm_with_prefix(const char *sock)
{
    char prefix[64];
    bipc_shm_prefix(sock, prefix, sizeof(prefix));
    char cmd[200];
    snprintf(cmd, sizeof(cmd), "ls /dev/shm 2>/dev/null | grep -c '^%s'", prefix + 1);
    FILE *f = popen(cmd, "r");
    int n = 0;
    if (f != NULL) {
        if (fscanf(f, "%d", &n) != 1) {
            n = 0;
        }
        pclose(f);
    }
    return n;
}

/* True when the daemon closed the connection (reads EOF within 2 s). */
static int closed_by_peer(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    for (;;) {
        if (poll(&p, 1, 2000) <= 0) {
            return 0;
        }
        char buf[256];
        ssize_t n = recv(fd, buf, sizeof(buf), 0);
        if (n == 0 || (n < 0 && errno == ECONNRESET)) {
            return 1;
        }
        if (n < 0) {
            return 0;
        }
    }
}

static void expected_response(const unsigned char *in, uint32_t n, unsigned char *out)
{
    bipc_counter(in, n, out, bipc_counter_response_size(n));
}

static void test_round_trips_over_unix_and_tcp(daemon_proc *dp)
{
    unsigned char req[2048], resp[512], want[512];
    for (size_t i = 0; i < sizeof(req); i++) {
        req[i] = (unsigned char)(i * 31 + 7);
    }
    bipc_client u, t;
    CHECK(bipc_client_connect_unix(&u, dp->sock) == 0, "unix connect");
    CHECK(bipc_client_connect_tcp(&t, "127.0.0.1", dp->port) == 0, "tcp connect");
    uint32_t sizes[] = {0, 1, 7, 8, 128, 2048};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        uint32_t n = sizes[k];
        expected_response(req, n, want);
        ssize_t a = bipc_client_request(&u, req, n, resp, sizeof(resp));
        CHECK(a == (ssize_t)bipc_counter_response_size(n) && memcmp(resp, want, (size_t)a) == 0, "unix size %u -> %zd", n, a);
        ssize_t b = bipc_client_request(&t, req, n, resp, sizeof(resp));
        CHECK(b == (ssize_t)bipc_counter_response_size(n) && memcmp(resp, want, (size_t)b) == 0, "tcp size %u -> %zd", n, b);
    }
    bipc_client_close(&u);
    bipc_client_close(&t);
}

static void test_pipelined_frames_get_responses_in_order(daemon_proc *dp)
{
    bipc_client c;
    CHECK(bipc_client_connect_unix(&c, dp->sock) == 0, "connect");
    unsigned char batch[100 * 20];
    for (uint32_t i = 0; i < 100; i++) {
        bipc_put_u32(batch + i * 20, 16);
        memset(batch + i * 20 + 4, (int)i, 16);
    }
    CHECK(bipc_client_send_raw(&c, batch, sizeof(batch)) == 0, "send batch");
    int ok = 1;
    for (uint32_t i = 0; i < 100 && ok; i++) {
        unsigned char hdr[6];
        size_t got = 0;
        while (got < sizeof(hdr)) {
            ssize_t n = recv(c.fd, hdr + got, sizeof(hdr) - got, 0);
            if (n <= 0) {
                ok = 0;
                break;
            }
            got += (size_t)n;
        }
        /* 16 bytes of value i -> 2 bytes: all 16 land in slot i % 2, so the order shows */
        ok = ok && bipc_get_u32(hdr) == 2 && hdr[4 + (i % 2)] == 16 && hdr[4 + 1 - (i % 2)] == 0;
    }
    CHECK(ok, "pipelined responses");
    bipc_client_close(&c);
}

static void test_bad_input_disconnects_only_that_client(daemon_proc *dp)
{
    bipc_client good;
    CHECK(bipc_client_connect_unix(&good, dp->sock) == 0, "connect");
    unsigned char resp[16];

    bipc_client c;
    unsigned char big[4];
    bipc_put_u32(big, 65537); /* over --max-frame=65536 */
    bipc_client_connect_tcp(&c, "127.0.0.1", dp->port);
    bipc_client_send_raw(&c, big, 4);
    CHECK(closed_by_peer(c.fd), "oversized frame closes the connection");
    bipc_client_close(&c);

    unsigned char huge_control[4];
    bipc_put_u32(huge_control, 0xffffffffu); /* control flag + a body far over BIPC_CONTROL_MAX */
    bipc_client_connect_unix(&c, dp->sock);
    bipc_client_send_raw(&c, huge_control, sizeof(huge_control));
    CHECK(closed_by_peer(c.fd), "oversized control frame closes the connection");
    bipc_client_close(&c);

    unsigned char empty_control[4];
    bipc_put_u32(empty_control, BIPC_CONTROL_FLAG);
    bipc_client_connect_unix(&c, dp->sock);
    bipc_client_send_raw(&c, empty_control, sizeof(empty_control));
    CHECK(closed_by_peer(c.fd), "empty control frame closes the connection");
    bipc_client_close(&c);

    unsigned char noise[64];
    for (size_t i = 0; i < sizeof(noise); i++) {
        noise[i] = (unsigned char)(0xA5 ^ (i * 13));
    }
    bipc_client_connect_tcp(&c, "127.0.0.1", dp->port);
    bipc_client_send_raw(&c, noise, sizeof(noise));
    CHECK(closed_by_peer(c.fd), "random noise closes the connection");
    bipc_client_close(&c);

    unsigned char truncated[12];
    bipc_put_u32(truncated, 100);
    memset(truncated + 4, 9, 8);
    bipc_client_connect_unix(&c, dp->sock);
    bipc_client_send_raw(&c, truncated, sizeof(truncated));
    bipc_client_close(&c); /* truncated frame, then gone */

    unsigned char ctrl_tcp[9];
    bipc_put_u32(ctrl_tcp, BIPC_CONTROL_FLAG | 5u);
    ctrl_tcp[4] = BIPC_OP_SHM_OPEN;
    bipc_put_u32(ctrl_tcp + 5, 0);
    bipc_client_connect_tcp(&c, "127.0.0.1", dp->port);
    bipc_client_send_raw(&c, ctrl_tcp, sizeof(ctrl_tcp));
    CHECK(closed_by_peer(c.fd), "shm handshake over TCP is refused");
    bipc_client_close(&c);

    unsigned char unknown_op[5];
    bipc_put_u32(unknown_op, BIPC_CONTROL_FLAG | 1u);
    unknown_op[4] = 0x55;
    bipc_client_connect_unix(&c, dp->sock);
    bipc_client_send_raw(&c, unknown_op, sizeof(unknown_op));
    CHECK(closed_by_peer(c.fd), "unknown control opcode closes the connection");
    bipc_client_close(&c);

    CHECK(bipc_client_request(&good, "abcdefgh", 8, resp, sizeof(resp)) == 1, "other client still served");
    CHECK(waitpid(dp->pid, NULL, WNOHANG) == 0, "daemon still alive");
    bipc_client_close(&good);
}

struct many_arg {
    daemon_proc *dp;
    int index;
    int ok;
};

static void *many_worker(void *p)
{
    struct many_arg *a = p;
    bipc_client c;
    int rc = a->index % 2 ? bipc_client_connect_tcp(&c, "127.0.0.1", a->dp->port) : bipc_client_connect_unix(&c, a->dp->sock);
    if (rc != 0) {
        return NULL;
    }
    unsigned char req[256], resp[64], want[64];
    memset(req, a->index & 0xff, sizeof(req));
    expected_response(req, sizeof(req), want);
    a->ok = 1;
    for (int i = 0; i < 200; i++) {
        if (bipc_client_request(&c, req, sizeof(req), resp, sizeof(resp)) != 32 || memcmp(resp, want, 32) != 0) {
            a->ok = 0;
            break;
        }
    }
    bipc_client_close(&c);
    return NULL;
}

static void test_many_clients_are_served_concurrently(daemon_proc *dp)
{
    enum { N = 64 };
    pthread_t th[N];
    struct many_arg args[N];
    for (int i = 0; i < N; i++) {
        args[i] = (struct many_arg){.dp = dp, .index = i};
        pthread_create(&th[i], NULL, many_worker, &args[i]);
    }
    int ok = 0;
    for (int i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
        ok += args[i].ok;
    }
    CHECK(ok == N, "%d of %d clients completed", ok, N);
}

/* Handshake without the "mapped" acknowledgement, so the shm name stays visible. */
static int raw_shm_open(int fd, char *name, size_t cap)
{
    unsigned char msg[9];
    bipc_put_u32(msg, BIPC_CONTROL_FLAG | 5u);
    msg[4] = BIPC_OP_SHM_OPEN;
    bipc_put_u32(msg + 5, 8192);
    if (send(fd, msg, sizeof(msg), 0) != sizeof(msg)) {
        return -1;
    }
    unsigned char reply[256];
    union {
        char buf[CMSG_SPACE(2 * sizeof(int))];
        struct cmsghdr align;
    } ctrl;
    struct iovec iov = {.iov_base = reply, .iov_len = sizeof(reply)};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctrl.buf, .msg_controllen = sizeof(ctrl.buf)};
    ssize_t n = recvmsg(fd, &mh, 0);
    if (n < 20 || (bipc_get_u32(reply) & BIPC_CONTROL_FLAG) == 0) {
        return -1;
    }
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    if (cm == NULL || cm->cmsg_type != SCM_RIGHTS) {
        return -1;
    }
    size_t len = (size_t)reply[18] | ((size_t)reply[19] << 8);
    if (len >= cap || 20 + len > (size_t)n) {
        return -1;
    }
    memcpy(name, reply + 20, len);
    name[len] = '\0';
    return 0;
}

static void test_shared_memory_round_trips(daemon_proc *dp)
{
    bipc_client c;
    CHECK(bipc_client_connect_unix(&c, dp->sock) == 0, "connect");
    CHECK(bipc_client_open_shm(&c, 8192) == 0, "handshake");
    if (c.shm == NULL) {
        return;
    }
    unsigned char req[2048], resp[512], want[512];
    int ok = 1;
    /* 8 KiB rings and 2 KiB requests: wraps many times */
    for (int i = 0; i < 2000 && ok; i++) {
        uint32_t n = (uint32_t)((i * 37) % 2049);
        for (uint32_t k = 0; k < n; k++) {
            req[k] = (unsigned char)(k * i);
        }
        expected_response(req, n, want);
        ssize_t r = bipc_client_shm_request(&c, req, n, resp, sizeof(resp));
        ok = r == (ssize_t)bipc_counter_response_size(n) && memcmp(resp, want, (size_t)r) == 0;
    }
    CHECK(ok, "2000 shm round trips with wrap-around");
    sleep_ms(50);
    CHECK(!shm_exists(c.shm_name), "name %s unlinked once mapped", c.shm_name);
    bipc_client_close(&c);
}

/* The header tells the client which CPU the daemon serves its ring on (it decides by that
   whether to hand over big batches in parts). */
static void test_the_daemon_publishes_the_cpu_it_serves_the_ring_on(daemon_proc *dp)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int target = (int)(cpus > 1 ? cpus - 1 : 0);
    cpu_set_t only, all;
    CPU_ZERO(&only);
    CPU_SET(target, &only);
    CHECK(sched_getaffinity(dp->pid, sizeof(all), &all) == 0, "read the daemon's affinity");
    CHECK(sched_setaffinity(dp->pid, sizeof(only), &only) == 0, "pin the daemon to cpu %d", target);
    bipc_client c;
    CHECK(bipc_client_connect_unix(&c, dp->sock) == 0, "connect");
    CHECK(bipc_client_open_shm(&c, 8192) == 0, "handshake");
    if (c.shm != NULL) {
        bipc_shm_header *h = (bipc_shm_header *)c.shm;
        CHECK(__atomic_load_n(&h->daemon_cpu, __ATOMIC_RELAXED) == BIPC_SHM_CPU_UNKNOWN, "unknown before the first doorbell");
        unsigned char req[16] = {0}, resp[64];
        CHECK(bipc_client_shm_request(&c, req, sizeof(req), resp, sizeof(resp)) > 0, "a request");
        uint32_t cpu = __atomic_load_n(&h->daemon_cpu, __ATOMIC_RELAXED);
        CHECK(cpu == (uint32_t)target, "daemon_cpu is %u, the daemon is pinned to %d", cpu, target);
    }
    bipc_client_close(&c);
    sched_setaffinity(dp->pid, sizeof(all), &all);
}

static void test_shm_objects_are_removed_when_a_client_leaves_or_is_killed(daemon_proc *dp)
{
    char name[128];
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", dp->sock);
    connect(fd, (struct sockaddr *)&sa, sizeof(sa));
    CHECK(raw_shm_open(fd, name, sizeof(name)) == 0, "raw handshake");
    CHECK(shm_exists(name), "%s exists during the session", name);
    close(fd);
    sleep_ms(100);
    CHECK(!shm_exists(name), "%s removed after the client closed", name);

    int pipefd[2];
    CHECK(pipe(pipefd) == 0, "pipe");
    pid_t child = fork();
    if (child == 0) {
        int cfd = socket(AF_UNIX, SOCK_STREAM, 0);
        connect(cfd, (struct sockaddr *)&sa, sizeof(sa));
        char nm[128] = "";
        raw_shm_open(cfd, nm, sizeof(nm));
        ssize_t w = write(pipefd[1], nm, sizeof(nm));
        (void)w;
        pause();
        _exit(0);
    }
    close(pipefd[1]);
    char child_name[128] = "";
    CHECK(read(pipefd[0], child_name, sizeof(child_name)) == (ssize_t)sizeof(child_name), "child handshake");
    close(pipefd[0]);
    CHECK(child_name[0] == '/' && shm_exists(child_name), "child segment %s exists", child_name);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    sleep_ms(100);
    CHECK(!shm_exists(child_name), "%s removed after the client was killed", child_name);
}

static void test_garbage_in_the_ring_disconnects_that_client(daemon_proc *dp)
{
    bipc_client c;
    CHECK(bipc_client_connect_unix(&c, dp->sock) == 0, "connect");
    CHECK(bipc_client_open_shm(&c, 8192) == 0, "handshake");
    if (c.shm == NULL) {
        return;
    }
    bipc_shm_header *h = (bipc_shm_header *)c.shm;
    unsigned char *ring = c.shm + BIPC_SHM_DATA_OFFSET;
    bipc_put_u32(ring, 9999999); /* a record longer than the ring */
    __atomic_store_n(&h->req_tail, 16, __ATOMIC_RELEASE);
    uint64_t one = 1;
    CHECK(write(c.doorbell_to_daemon, &one, 8) == 8, "doorbell");
    CHECK(closed_by_peer(c.fd), "garbage record closes the connection");
    bipc_client_close(&c);
    CHECK(waitpid(dp->pid, NULL, WNOHANG) == 0, "daemon still alive");
}

static void test_random_input_never_takes_the_daemon_down(daemon_proc *dp)
{
    unsigned char junk[4096];
    for (int i = 0; i < 200; i++) {
        bipc_client c;
        int rc = i % 2 ? bipc_client_connect_tcp(&c, "127.0.0.1", dp->port) : bipc_client_connect_unix(&c, dp->sock);
        if (rc != 0) {
            continue;
        }
        size_t n = 1 + (size_t)(random() % (long)sizeof(junk));
        for (size_t k = 0; k < n; k++) {
            junk[k] = (unsigned char)random();
        }
        if (i % 3 == 0) {
            bipc_put_u32(junk, (uint32_t)(random() % 70000)); /* plausible lengths too */
            if (i % 2 == 0) {
                bipc_put_u32(junk, BIPC_CONTROL_FLAG | (uint32_t)(random() % 64)); /* control frames too */
            }
        }
        bipc_client_send_raw(&c, junk, n);
        bipc_client_close(&c);
    }
    for (int i = 0; i < 50; i++) {
        bipc_client c;
        if (bipc_client_connect_unix(&c, dp->sock) != 0 || bipc_client_open_shm(&c, 8192) != 0) {
            continue;
        }
        bipc_shm_header *h = (bipc_shm_header *)c.shm;
        unsigned char *ring = c.shm + BIPC_SHM_DATA_OFFSET;
        for (size_t k = 0; k < 8192; k += 4) {
            bipc_put_u32(ring + k, (uint32_t)random() % (i % 2 ? 64u : 0xffffffffu));
        }
        h->resp_head = (uint64_t)random() % 3 == 0 ? (uint64_t)random() : 0;
        __atomic_store_n(&h->req_tail, (uint64_t)(random() % 20000) & ~7ull, __ATOMIC_RELEASE);
        uint64_t one = 1;
        ssize_t w = write(c.doorbell_to_daemon, &one, 8);
        (void)w;
        sleep_ms(2);
        bipc_client_close(&c);
    }
    sleep_ms(50);
    CHECK(waitpid(dp->pid, NULL, WNOHANG) == 0, "daemon survived random input");
    bipc_client c;
    unsigned char resp[8];
    CHECK(bipc_client_connect_unix(&c, dp->sock) == 0 && bipc_client_request(&c, "abcdefgh", 8, resp, sizeof(resp)) == 1,
          "daemon still serves after random input");
    bipc_client_close(&c);
}

static void test_sigterm_removes_socket_and_shm(void)
{
    daemon_proc dp;
    CHECK(daemon_start(&dp) == 0, "start");
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", dp.sock);
    connect(fd, (struct sockaddr *)&sa, sizeof(sa));
    char name[128] = "";
    CHECK(raw_shm_open(fd, name, sizeof(name)) == 0 && shm_exists(name), "segment exists");
    int status = daemon_stop(&dp, SIGTERM);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "clean exit status %d", status);
    struct stat st;
    CHECK(stat(dp.sock, &st) != 0, "socket file removed");
    CHECK(!shm_exists(name), "segment removed");
    CHECK(closed_by_peer(fd), "client sees EOF");
    close(fd);
}

static void test_restart_after_a_killed_daemon_cleans_up_its_leftovers(void)
{
    daemon_proc dp;
    CHECK(daemon_start(&dp) == 0, "start");
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", dp.sock);
    connect(fd, (struct sockaddr *)&sa, sizeof(sa));
    char name[128] = "";
    CHECK(raw_shm_open(fd, name, sizeof(name)) == 0, "handshake");
    daemon_stop(&dp, SIGKILL);
    close(fd);
    struct stat st;
    CHECK(stat(dp.sock, &st) == 0 && shm_exists(name), "a killed daemon leaves its socket and %s behind", name);
    CHECK(count_shm_with_prefix(dp.sock) >= 1, "prefix count");

    daemon_proc again;
    CHECK(daemon_start_on(&again, dp.sock, NULL) == 0, "restart on the same socket path");
    CHECK(!shm_exists(name), "stale %s removed on start", name);
    bipc_client c;
    unsigned char resp[8];
    CHECK(bipc_client_connect_unix(&c, dp.sock) == 0 && bipc_client_request(&c, "12345678", 8, resp, sizeof(resp)) == 1, "restarted daemon serves");
    bipc_client_close(&c);

    daemon_proc third;
    snprintf(third.sock, sizeof(third.sock), "%s", dp.sock);
    pid_t pid = fork();
    if (pid == 0) {
        char u[160];
        snprintf(u, sizeof(u), "--unix=%s", dp.sock);
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 2);
        execl(daemon_path, daemon_path, u, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1, "a second daemon on a live socket exits 1 (status %d)", status);
    CHECK(daemon_stop(&again, SIGTERM) == 0, "stop");
}

/* ---------- the shared contract, spoken literally on raw sockets ---------- */

static int raw_connect(const daemon_proc *dp, int tcp)
{
    if (tcp) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)dp->port)};
        inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
        if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
            return fd;
        }
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", dp->sock);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
        return fd;
    }
    if (fd >= 0) {
        close(fd);
    }
    return -1;
}

static int write_all(int fd, const unsigned char *p, size_t len)
{
    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Reads exactly len bytes, giving up after 5 s without data (a wrong length must not hang). */
static int read_exact(int fd, unsigned char *p, size_t len)
{
    while (len > 0) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        if (poll(&pfd, 1, 5000) <= 0) {
            return -1;
        }
        ssize_t n = recv(fd, p, len, 0);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Reads one frame (u32 LE length + bytes) and compares it with the byte-frequency answer. */
static int read_contract_answer(int fd, const unsigned char *req, uint32_t s, unsigned char *buf, size_t cap)
{
    unsigned char hdr[4];
    if (read_exact(fd, hdr, 4) != 0) {
        return 0;
    }
    uint32_t len = bipc_get_u32(hdr);
    uint32_t want_len = s / 8 > 0 ? s / 8 : 1; /* max(1, floor(S/8)), spelled out */
    if (len != want_len || len > cap || read_exact(fd, buf, len) != 0) {
        return 0;
    }
    unsigned char want[100000 / 8];
    bipc_counter(req, s, want, want_len);
    return memcmp(buf, want, len) == 0;
}

static void test_contract_frames_on_raw_sockets(void)
{
    static const uint32_t sizes[] = {0, 1, 7, 8, 9, 128, 2048, 100000};
    enum { COUNT = sizeof(sizes) / sizeof(sizes[0]), MAX = 100000 };
    daemon_proc dp;
    char sock[108];
    snprintf(sock, sizeof(sock), "/tmp/bobbin-ipc-contract-%d-%ld.sock", (int)getpid(), (long)random());
    CHECK(daemon_start_on(&dp, sock, "--max-frame=1048576") == 0, "start a daemon that takes 100000-byte frames");
    static unsigned char req[MAX], resp[MAX / 8], wire[COUNT * 4 + COUNT * MAX];
    for (uint32_t i = 0; i < MAX; i++) {
        req[i] = (unsigned char)((i * 2654435761u) >> 13);
    }
    for (int tcp = 0; tcp <= 1; tcp++) {
        const char *name = tcp ? "tcp" : "unix";
        int fd = raw_connect(&dp, tcp);
        CHECK(fd >= 0, "%s connect", name);
        if (fd < 0) {
            continue;
        }
        /* One frame at a time: L = S, then S bytes; one frame back. */
        for (size_t k = 0; k < COUNT; k++) {
            unsigned char hdr[4];
            bipc_put_u32(hdr, sizes[k]);
            int sent = write_all(fd, hdr, 4) == 0 && write_all(fd, req, sizes[k]) == 0;
            CHECK(sent && read_contract_answer(fd, req, sizes[k], resp, sizeof(resp)), "%s: S=%u answered by the contract",
                  name, sizes[k]);
        }
        /* Every size pipelined in one write: the answers come back in request order. */
        size_t w = 0;
        for (size_t k = 0; k < COUNT; k++) {
            bipc_put_u32(wire + w, sizes[k]);
            memcpy(wire + w + 4, req, sizes[k]);
            w += 4 + sizes[k];
        }
        /* Sizes in reverse too, so a mixed-up order cannot pass by symmetry. */
        for (size_t k = COUNT; k-- > 0;) {
            bipc_put_u32(wire + w, sizes[k]);
            memcpy(wire + w + 4, req, sizes[k]);
            w += 4 + sizes[k];
        }
        CHECK(write_all(fd, wire, w) == 0, "%s: pipelined write", name);
        int in_order = 1;
        for (size_t k = 0; k < 2 * COUNT && in_order; k++) {
            uint32_t s = k < COUNT ? sizes[k] : sizes[2 * COUNT - 1 - k];
            in_order = read_contract_answer(fd, req, s, resp, sizeof(resp));
        }
        CHECK(in_order, "%s: %d pipelined frames answered in order", name, 2 * COUNT);
        close(fd);
    }
    CHECK(daemon_stop(&dp, SIGTERM) == 0, "contract daemon exits 0");
}

/* ---------- who may connect ---------- */

static void test_the_socket_is_0600_under_umask_000_in_a_0700_directory_it_makes(void)
{
    char dir[80], sock[108];
    snprintf(dir, sizeof(dir), "/tmp/bobbin-ipc-test-dir-%d-%ld", (int)getpid(), (long)random());
    snprintf(sock, sizeof(sock), "%s/d.sock", dir);
    mode_t old = umask(0); /* the daemon inherits it */
    daemon_proc dp;
    int started = daemon_start_on(&dp, sock, NULL);
    umask(old);
    CHECK(started == 0, "start in a directory that does not exist yet");
    struct stat st;
    CHECK(stat(sock, &st) == 0 && (st.st_mode & 07777) == 0600, "socket mode %o", (unsigned)(st.st_mode & 07777));
    CHECK(stat(dir, &st) == 0 && (st.st_mode & 07777) == 0700, "directory mode %o", (unsigned)(st.st_mode & 07777));
    CHECK(daemon_stop(&dp, SIGTERM) == 0, "exits 0");
    rmdir(dir);
}

/* Runs as uid/gid 65534 (nobody) in a child: 0 refused (EOF), 1 answered, 2 connect failed (EACCES). */
static int request_as_nobody(const char *sock)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0) {
            _exit(3);
        }
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
        if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
            _exit(2);
        }
        unsigned char frame[8];
        bipc_put_u32(frame, 4);
        memcpy(frame + 4, "abcd", 4);
        if (send(fd, frame, sizeof(frame), 0) != (ssize_t)sizeof(frame)) {
            _exit(0); /* already closed */
        }
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 2000) <= 0) {
            _exit(4);
        }
        unsigned char buf[16];
        ssize_t n = recv(fd, buf, sizeof(buf), 0);
        _exit(n > 0 ? 1 : 0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 5;
}

static void test_a_peer_of_another_uid_is_refused(void)
{
    if (geteuid() != 0) {
        printf("skipped: refusing another uid needs root to run a client as nobody\n");
        return;
    }
    daemon_proc dp;
    CHECK(daemon_start(&dp) == 0, "start");
    CHECK(request_as_nobody(dp.sock) == 2, "the 0600 socket keeps nobody out");
    /* A socket opened up by hand (or a group that lets too many in): SO_PEERCRED still refuses. */
    chmod(dp.sock, 0666);
    CHECK(request_as_nobody(dp.sock) == 0, "nobody is disconnected unanswered");
    bipc_client c;
    unsigned char resp[8];
    CHECK(bipc_client_connect_unix(&c, dp.sock) == 0 && bipc_client_request(&c, "abcd", 4, resp, sizeof(resp)) == 1,
          "the daemon's own uid is served");
    bipc_client_close(&c);
    CHECK(daemon_stop(&dp, SIGTERM) == 0, "exits 0");

    char sock[108];
    snprintf(sock, sizeof(sock), "/tmp/bobbin-ipc-test-%d-%ld.sock", (int)getpid(), (long)random());
    CHECK(daemon_start_on(&dp, sock, "--allow-uid=65534") == 0, "start with --allow-uid");
    chmod(dp.sock, 0666);
    CHECK(request_as_nobody(dp.sock) == 1, "an allowed uid is served");
    CHECK(daemon_stop(&dp, SIGTERM) == 0, "exits 0");
}

static void test_a_group_makes_the_socket_0660_of_that_group(void)
{
    char sock[108];
    snprintf(sock, sizeof(sock), "/tmp/bobbin-ipc-test-%d-%ld.sock", (int)getpid(), (long)random());
    char group[64];
    snprintf(group, sizeof(group), "--unix-group=%d", (int)getegid());
    daemon_proc dp;
    CHECK(daemon_start_on(&dp, sock, group) == 0, "start with --unix-group");
    struct stat st;
    CHECK(stat(sock, &st) == 0 && (st.st_mode & 07777) == 0660 && st.st_gid == getegid(), "socket mode %o gid %d",
          (unsigned)(st.st_mode & 07777), (int)st.st_gid);
    CHECK(daemon_stop(&dp, SIGTERM) == 0, "exits 0");
}

int main(int argc, char **argv)
{
    daemon_path = argc > 1 ? argv[1] : "build/bobbin-ipcd";
    signal(SIGPIPE, SIG_IGN);
    srandom((unsigned)time(NULL) ^ (unsigned)getpid());

    test_decoder_reassembles_frames_fed_byte_by_byte();
    test_decoder_rejects_oversized_frames_and_control_frames();
    test_counter_folds_byte_counts_into_the_response();
    test_counter_matches_the_definition_for_every_size_up_to_5000();

    daemon_proc dp;
    if (daemon_start(&dp) != 0) {
        fprintf(stderr, "FAIL: daemon did not start (%s)\n", daemon_path);
        return 1;
    }
    test_round_trips_over_unix_and_tcp(&dp);
    test_pipelined_frames_get_responses_in_order(&dp);
    test_bad_input_disconnects_only_that_client(&dp);
    test_many_clients_are_served_concurrently(&dp);
    test_shared_memory_round_trips(&dp);
    test_the_daemon_publishes_the_cpu_it_serves_the_ring_on(&dp);
    test_shm_objects_are_removed_when_a_client_leaves_or_is_killed(&dp);
    test_garbage_in_the_ring_disconnects_that_client(&dp);
    test_random_input_never_takes_the_daemon_down(&dp);
    CHECK(daemon_stop(&dp, SIGTERM) == 0, "daemon exits 0 on SIGTERM");
    CHECK(count_shm_with_prefix(dp.sock) == 0, "no shm left");

    test_contract_frames_on_raw_sockets();
    test_sigterm_removes_socket_and_shm();
    test_restart_after_a_killed_daemon_cleans_up_its_leftovers();
    test_the_socket_is_0600_under_umask_000_in_a_0700_directory_it_makes();
    test_a_peer_of_another_uid_is_refused();
    test_a_group_makes_the_socket_0660_of_that_group();

    printf("%d checks, %d failures\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
