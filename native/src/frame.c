#include "bobbin_ipc.h"

#include <stdlib.h>
#include <string.h>

int bipc_decoder_init(bipc_decoder *d, uint32_t max_frame)
{
    memset(d, 0, sizeof(*d));
    d->max_frame = max_frame;
    d->cap = 16384;
    d->buf = malloc(d->cap);
    return d->buf == NULL ? -1 : 0;
}

void bipc_decoder_free(bipc_decoder *d)
{
    free(d->buf);
    d->buf = NULL;
    d->len = d->pos = d->cap = 0;
}

unsigned char *bipc_decoder_space(bipc_decoder *d, size_t want, size_t *avail)
{
    if (d->pos > 0 && (d->pos == d->len || d->cap - d->len < want)) {
        /* Compact only when it frees room we need: a memmove per read would cost more. */
        memmove(d->buf, d->buf + d->pos, d->len - d->pos);
        d->len -= d->pos;
        d->pos = 0;
    }
    if (d->cap - d->len < want) {
        /* Room for the largest frame this decoder accepts, a request or a control frame. */
        size_t largest = d->max_frame > BIPC_CONTROL_MAX ? d->max_frame : BIPC_CONTROL_MAX;
        size_t limit = largest + BIPC_HEADER_SIZE;
        size_t ncap = d->cap;
        while (ncap - d->len < want && ncap < limit) {
            ncap *= 2;
        }
        if (ncap > limit && limit > d->cap) {
            ncap = limit;
        }
        if (ncap != d->cap) {
            unsigned char *nb = realloc(d->buf, ncap);
            if (nb == NULL) {
                return NULL;
            }
            d->buf = nb;
            d->cap = ncap;
        }
    }
    *avail = d->cap - d->len;
    return d->buf + d->len;
}

void bipc_decoder_commit(bipc_decoder *d, size_t n)
{
    d->len += n;
}

bipc_decode_result bipc_decoder_next(bipc_decoder *d, const unsigned char **payload, uint32_t *payload_len,
                                     uint32_t *declared_len)
{
    size_t avail = d->len - d->pos;
    if (avail < BIPC_HEADER_SIZE) {
        return BIPC_DECODE_NEED_MORE;
    }
    const unsigned char *p = d->buf + d->pos;
    uint32_t word = bipc_get_u32(p);
    int control = (word & BIPC_CONTROL_FLAG) != 0;
    uint32_t body = word & ~BIPC_CONTROL_FLAG;
    *declared_len = body;
    if (control && body > BIPC_CONTROL_MAX) {
        return BIPC_DECODE_CONTROL_TOO_LARGE;
    }
    if (!control && body > d->max_frame) {
        return BIPC_DECODE_TOO_LARGE;
    }
    if (avail < BIPC_HEADER_SIZE + (size_t)body) {
        return BIPC_DECODE_NEED_MORE;
    }
    *payload = p + BIPC_HEADER_SIZE;
    *payload_len = body;
    d->pos += BIPC_HEADER_SIZE + (size_t)body;
    return control ? BIPC_DECODE_CONTROL : BIPC_DECODE_FRAME;
}

size_t bipc_decoder_pending(const bipc_decoder *d)
{
    return d->len - d->pos;
}

unsigned char *bipc_outbuf_reserve(bipc_outbuf *o, size_t n)
{
    if (o->pos > 0 && o->pos == o->len) {
        o->pos = o->len = 0;
    }
    if (o->cap - o->len < n) {
        if (o->pos > 0) {
            memmove(o->buf, o->buf + o->pos, o->len - o->pos);
            o->len -= o->pos;
            o->pos = 0;
        }
        if (o->cap - o->len < n) {
            size_t ncap = o->cap ? o->cap : 16384;
            while (ncap - o->len < n) {
                ncap *= 2;
            }
            unsigned char *nb = realloc(o->buf, ncap);
            if (nb == NULL) {
                return NULL;
            }
            o->buf = nb;
            o->cap = ncap;
        }
    }
    unsigned char *p = o->buf + o->len;
    o->len += n;
    return p;
}

unsigned char *bipc_outbuf_frame(bipc_outbuf *o, uint32_t payload_len)
{
    unsigned char *p = bipc_outbuf_reserve(o, BIPC_HEADER_SIZE + (size_t)payload_len);
    if (p == NULL) {
        return NULL;
    }
    bipc_put_u32(p, payload_len);
    return p + BIPC_HEADER_SIZE;
}

void bipc_outbuf_free(bipc_outbuf *o)
{
    free(o->buf);
    memset(o, 0, sizeof(*o));
}

void bipc_counter(const unsigned char *in, uint32_t in_len, unsigned char *out, uint32_t out_len)
{
    /*
     * Every output byte is a sum of counts mod 256, so 8-bit counters (wrapping) give the same
     * result as exact ones, and the fold adds whole slices instead of computing v % out_len per
     * value: 256 divisions cost ~0.45 us per request, more than the rest of the daemon's work.
     */
    unsigned char counts[256] = {0};
    uint32_t i = 0;
    if (in_len >= 512) {
        /* Four tables: a run of equal bytes no longer chains every increment on the last one. */
        unsigned char c4[4][256] = {{0}};
        for (; i + 4 <= in_len; i += 4) {
            c4[0][in[i]]++;
            c4[1][in[i + 1]]++;
            c4[2][in[i + 2]]++;
            c4[3][in[i + 3]]++;
        }
        for (uint32_t v = 0; v < 256; v++) {
            counts[v] = (unsigned char)(c4[0][v] + c4[1][v] + c4[2][v] + c4[3][v]);
        }
    }
    for (; i < in_len; i++) {
        counts[in[i]]++;
    }
    if (out_len >= 256) {
        memcpy(out, counts, 256);
        memset(out + 256, 0, out_len - 256);
        return;
    }
    /* out[j] = sum of counts[j], counts[j + n], counts[j + 2n]...: slice by slice (vectorises). */
    memcpy(out, counts, out_len);
    for (uint32_t base = out_len; base < 256; base += out_len) {
        uint32_t width = 256 - base < out_len ? 256 - base : out_len;
        for (uint32_t j = 0; j < width; j++) {
            out[j] = (unsigned char)(out[j] + counts[base + j]);
        }
    }
}
