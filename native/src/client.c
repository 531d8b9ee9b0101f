#include "bobbin_ipc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

static int client_init(bipc_client *c, int fd)
{
    memset(c, 0, sizeof(*c));
    c->fd = fd;
    c->next_id = 1;
    c->doorbell_to_daemon = c->doorbell_to_client = -1;
    return bipc_decoder_init(&c->dec, BIPC_DEFAULT_MAX_FRAME);
}

int bipc_client_connect_unix(bipc_client *c, const char *path)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    return client_init(c, fd);
}

int bipc_client_connect_tcp(bipc_client *c, const char *host, int port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, host, &sa.sin_addr);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return client_init(c, fd);
}

void bipc_client_close(bipc_client *c)
{
    if (c->shm != NULL) {
        munmap(c->shm, c->shm_size);
        c->shm = NULL;
    }
    if (c->doorbell_to_daemon >= 0) {
        close(c->doorbell_to_daemon);
    }
    if (c->doorbell_to_client >= 0) {
        close(c->doorbell_to_client);
    }
    if (c->fd >= 0) {
        close(c->fd);
    }
    c->fd = c->doorbell_to_daemon = c->doorbell_to_client = -1;
    bipc_decoder_free(&c->dec);
}

int bipc_client_send_raw(bipc_client *c, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    while (len > 0) {
        ssize_t n = send(c->fd, p, len, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static uint32_t take_id(bipc_client *c)
{
    uint32_t id = c->next_id++;
    if (c->next_id == 0) {
        c->next_id = 1;
    }
    return id;
}

/* Reads until one whole (non-control) frame is decoded. */
static int read_frame(bipc_client *c, const unsigned char **payload, uint32_t *plen)
{
    for (;;) {
        uint32_t declared;
        bipc_decode_result r = bipc_decoder_next(&c->dec, payload, plen, &declared);
        if (r == BIPC_DECODE_FRAME) {
            return 0;
        }
        if (r != BIPC_DECODE_NEED_MORE) {
            return -1;
        }
        size_t avail;
        unsigned char *space = bipc_decoder_space(&c->dec, 4096, &avail);
        if (space == NULL) {
            return -1;
        }
        ssize_t n = recv(c->fd, space, avail, 0);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return -1;
        }
        bipc_decoder_commit(&c->dec, (size_t)n);
    }
}

ssize_t bipc_client_request(bipc_client *c, const void *req, uint32_t len, void *out, size_t cap)
{
    /* One caller, one request in flight: the next frame read is this request's answer. */
    unsigned char hdr[BIPC_HEADER_SIZE];
    bipc_put_u32(hdr, len);
    struct iovec iov[2] = {{.iov_base = hdr, .iov_len = sizeof(hdr)}, {.iov_base = (void *)req, .iov_len = len}};
    size_t total = sizeof(hdr) + (size_t)len;
    ssize_t n = writev(c->fd, iov, 2); /* one call per frame: no Nagle/delayed-ACK stall */
    if (n < 0) {
        return -1;
    }
    if ((size_t)n < total) {
        size_t done = (size_t)n;
        if (done < sizeof(hdr)) {
            if (bipc_client_send_raw(c, hdr + done, sizeof(hdr) - done) != 0 || bipc_client_send_raw(c, req, len) != 0) {
                return -1;
            }
        } else if (bipc_client_send_raw(c, (const unsigned char *)req + (done - sizeof(hdr)), total - done) != 0) {
            return -1;
        }
    }
    uint32_t plen;
    const unsigned char *payload;
    if (read_frame(c, &payload, &plen) != 0) {
        return -1;
    }
    size_t copy = plen < cap ? plen : cap;
    memcpy(out, payload, copy);
    return (ssize_t)plen;
}

int bipc_client_open_shm(bipc_client *c, uint32_t ring_capacity)
{
    unsigned char msg[9];
    bipc_put_u32(msg, BIPC_CONTROL_FLAG | 5u);
    msg[4] = BIPC_OP_SHM_OPEN;
    bipc_put_u32(msg + 5, ring_capacity);
    if (bipc_client_send_raw(c, msg, sizeof(msg)) != 0) {
        return -1;
    }
    unsigned char reply[512];
    union {
        char buf[CMSG_SPACE(2 * sizeof(int))];
        struct cmsghdr align;
    } ctrl;
    struct iovec iov = {.iov_base = reply, .iov_len = sizeof(reply)};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctrl.buf, .msg_controllen = sizeof(ctrl.buf)};
    ssize_t n = recvmsg(c->fd, &mh, MSG_CMSG_CLOEXEC);
    if (n < 20) {
        return -1;
    }
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    if (cm == NULL || cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len != CMSG_LEN(2 * sizeof(int))) {
        return -1;
    }
    int fds[2];
    memcpy(fds, CMSG_DATA(cm), sizeof(fds));
    c->doorbell_to_daemon = fds[0];
    c->doorbell_to_client = fds[1];
    uint32_t word = bipc_get_u32(reply);
    if ((word & BIPC_CONTROL_FLAG) == 0 || reply[4] != BIPC_OP_SHM_OPEN || reply[5] != 0) {
        return -1;
    }
    uint32_t size = bipc_get_u32(reply + 14);
    size_t name_len = (size_t)reply[18] | ((size_t)reply[19] << 8);
    if (name_len >= sizeof(c->shm_name) || 20 + name_len > (size_t)n) {
        return -1;
    }
    memcpy(c->shm_name, reply + 20, name_len);
    c->shm_name[name_len] = '\0';
    int fd = shm_open(c->shm_name, O_RDWR | O_CLOEXEC, 0);
    if (fd < 0) {
        return -1;
    }
    c->shm = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (c->shm == MAP_FAILED) {
        c->shm = NULL;
        return -1;
    }
    c->shm_size = size;
    unsigned char mapped[5];
    bipc_put_u32(mapped, BIPC_CONTROL_FLAG | 1u);
    mapped[4] = BIPC_OP_SHM_MAPPED;
    return bipc_client_send_raw(c, mapped, sizeof(mapped));
}

ssize_t bipc_client_shm_request(bipc_client *c, const void *req, uint32_t len, void *out, size_t cap)
{
    bipc_shm_header *h = (bipc_shm_header *)c->shm;
    unsigned char *req_ring = c->shm + BIPC_SHM_DATA_OFFSET;
    unsigned char *resp_ring = req_ring + h->req_capacity;
    uint32_t rcap = h->req_capacity;
    uint32_t rec = bipc_record_size(BIPC_ID_SIZE + len);
    if (rec > rcap) {
        return -1;
    }
    uint32_t id = take_id(c);
    uint64_t tail = h->req_tail;
    uint32_t off = (uint32_t)(tail % rcap);
    uint64_t need = rec + (rcap - off < rec ? rcap - off : 0u);
    while (rcap - (tail - __atomic_load_n(&h->req_head, __ATOMIC_ACQUIRE)) < need) {
        struct pollfd p = {.fd = c->doorbell_to_client, .events = POLLIN};
        poll(&p, 1, 1); /* one caller at a time here: the ring only fills if the daemon stalls */
    }
    if (rcap - off < rec) {
        bipc_put_u32(req_ring + off, BIPC_SHM_WRAP);
        tail += rcap - off;
        off = 0;
    }
    bipc_put_u32(req_ring + off, BIPC_ID_SIZE + len);
    bipc_put_u32(req_ring + off + 4, id);
    memcpy(req_ring + off + 8, req, len);
    __atomic_store_n(&h->req_tail, tail + rec, __ATOMIC_RELEASE);
    uint64_t one = 1;
    if (write(c->doorbell_to_daemon, &one, sizeof(one)) < 0) {
        return -1;
    }
    uint32_t scap = h->resp_capacity;
    for (;;) {
        uint64_t head = h->resp_head;
        uint64_t rtail = __atomic_load_n(&h->resp_tail, __ATOMIC_ACQUIRE);
        while (head != rtail) {
            uint32_t roff = (uint32_t)(head % scap);
            uint32_t blen = bipc_get_u32(resp_ring + roff);
            if (blen == BIPC_SHM_WRAP) {
                head += scap - roff;
                continue;
            }
            uint32_t rid = bipc_get_u32(resp_ring + roff + 4);
            uint32_t plen = blen - BIPC_ID_SIZE;
            if (rid == id) {
                memcpy(out, resp_ring + roff + 8, plen < cap ? plen : cap);
            }
            head += bipc_record_size(blen);
            __atomic_store_n(&h->resp_head, head, __ATOMIC_RELEASE);
            if (rid == id) {
                return (ssize_t)plen;
            }
        }
        struct pollfd p = {.fd = c->doorbell_to_client, .events = POLLIN};
        int r = poll(&p, 1, 1000);
        if (r < 0 && errno != EINTR) {
            return -1;
        }
        if (r == 0) {
            /* No doorbell for a second: is the daemon still there? */
            struct pollfd q = {.fd = c->fd, .events = POLLIN};
            if (poll(&q, 1, 0) > 0) {
                char b;
                if (recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) == 0) {
                    return -1;
                }
            }
        }
        uint64_t v;
        if (r > 0 && read(c->doorbell_to_client, &v, sizeof(v)) < 0 && errno != EAGAIN) {
            return -1;
        }
    }
}
