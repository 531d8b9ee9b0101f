/*
 * bobbin-legacy-pool: the process pool of `bobbin serve --legacy` (docs/LEGACY.md, "The pool").
 *
 * A small web SAPI over PHP's embed library (libphp). The master starts PHP once (the
 * module start-up: extensions, php.ini, opcache's shared memory), then forks the children;
 * each child takes one connection at a time from the listening socket it inherits as fd 3,
 * reads one request, runs its script between PHP's own request start-up and shut-down — what
 * PHP-FPM does for each request, and what makes the next request start from a clean state —
 * sends the response and closes the connection. The master replaces a child that died (killed
 * past --request-timeout by the worker, for one).
 *
 * The worker (Bobbin\Http\Legacy\PooledScriptRunner) speaks HTTP and sends, per connection:
 *
 *     u32 size of the variables block | u32 count | count × (u32 length, name, u32 length, value)
 *     u64 body length | the body
 *
 * (big-endian), the variables being the request's $_SERVER; it gets back the child's pid
 * (u32) and then the response in frames as Bobbin\Http\Legacy\ScriptResponseFrame defines
 * them: one at the end, or one per flush() with "more" set. PHP itself makes $_GET, $_POST,
 * $_COOKIE, $_FILES and php://input from the query string, the Cookie header and the body,
 * as it does under PHP-FPM.
 *
 * Usage: bobbin-legacy-pool --children=N [--ini=FILE] [-d name=value]... (fd 3 listening)
 *
 * Written against PHP's public SAPI headers (main/SAPI.h, main/php_main.h).
 */
#define _GNU_SOURCE
#include <main/php.h>
#include <main/SAPI.h>
#include <main/php_main.h>
#include <main/php_variables.h>
#include <main/php_output.h>
#include <ext/standard/head.h>
#include <Zend/zend_signal.h>

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LISTEN_FD 3
/* Output past this is sent without waiting for the script's end (a frame saying more follows). */
#define OUTPUT_CHUNK (1 << 20)
#define MAX_CHILDREN 1024
#define MAX_VARIABLES_BLOCK (64 << 20)

#define FATAL_TYPES (E_ERROR | E_PARSE | E_CORE_ERROR | E_COMPILE_ERROR | E_USER_ERROR | E_RECOVERABLE_ERROR)

typedef struct {
    char *data;
    size_t length;
    size_t capacity;
} buffer;

/* One request, in a child. */
static struct {
    int connection;      /* -1 once the worker is gone: the script runs on, as under PHP-FPM */
    char *variables;     /* the block as read; names and values point into it, NUL-terminated */
    uint32_t count;
    char **names;
    char **values;
    uint32_t *value_lengths;
    uint64_t body_left;
    buffer output;       /* output not yet sent */
    bool head_captured;  /* status and headers taken (PHP sent its headers) */
    bool head_sent;      /* the first frame went out */
    int status;
    buffer header_lines; /* (u32 length, line)… as the frame carries them */
    uint32_t header_count;
    buffer fatal;        /* "message in file:line" of the fatal error that ended the script */
    bool finished;       /* fastcgi_finish_request(): the response went; later output goes nowhere */
} request;

static void (*php_error_callback)(int, zend_string *, const uint32_t, zend_string *);
static volatile sig_atomic_t stopping = 0;

static void append(buffer *to, const char *bytes, size_t length)
{
    if (to->length + length > to->capacity) {
        size_t capacity = to->capacity == 0 ? 8192 : to->capacity;
        while (capacity < to->length + length) {
            capacity *= 2;
        }
        char *grown = realloc(to->data, capacity);
        if (grown == NULL) {
            fputs("bobbin-legacy-pool: out of memory\n", stderr);
            _exit(70);
        }
        to->data = grown;
        to->capacity = capacity;
    }
    memcpy(to->data + to->length, bytes, length);
    to->length += length;
}

static void append_u32(buffer *to, uint32_t value)
{
    unsigned char bytes[4] = {value >> 24, value >> 16, value >> 8, value};
    append(to, (const char *) bytes, 4);
}

static bool write_all(int fd, const char *bytes, size_t length)
{
    while (length > 0) {
        ssize_t written = write(fd, bytes, length);
        if (written < 0 && errno == EINTR) {
            continue;
        }
        if (written <= 0) {
            return false;
        }
        bytes += written;
        length -= (size_t) written;
    }
    return true;
}

static bool read_all(int fd, char *into, size_t length)
{
    while (length > 0) {
        ssize_t got = read(fd, into, length);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            return false;
        }
        into += got;
        length -= (size_t) got;
    }
    return true;
}

static uint32_t u32_at(const unsigned char *bytes)
{
    return ((uint32_t) bytes[0] << 24) | ((uint32_t) bytes[1] << 16) | ((uint32_t) bytes[2] << 8) | bytes[3];
}

/* Sends the output so far: with the status and the headers in the first frame only. */
static void send_frame(bool more)
{
    if (request.connection < 0) {
        request.output.length = 0;
        return;
    }
    buffer head = {0};
    bool first = !request.head_sent;
    unsigned char fixed[7] = {0};
    uint32_t count = first ? request.header_count : 0;
    int status = first ? (request.head_captured ? request.status : 200) : 0;
    fixed[0] = (unsigned char) (status >> 8);
    fixed[1] = (unsigned char) status;
    fixed[2] = more ? 1 : 0;
    fixed[3] = count >> 24; fixed[4] = count >> 16; fixed[5] = count >> 8; fixed[6] = count;
    uint64_t payload = 7 + (first ? request.header_lines.length : 0) + 4 + (more ? 0 : request.fatal.length) + request.output.length;
    unsigned char size[8];
    for (int i = 0; i < 8; i++) {
        size[i] = (unsigned char) (payload >> (56 - 8 * i));
    }
    append(&head, (const char *) size, 8);
    append(&head, (const char *) fixed, 7);
    if (first && request.header_lines.length > 0) {
        append(&head, request.header_lines.data, request.header_lines.length);
    }
    append_u32(&head, more ? 0 : (uint32_t) request.fatal.length);
    if (!more && request.fatal.length > 0) {
        append(&head, request.fatal.data, request.fatal.length);
    }
    bool written = write_all(request.connection, head.data, head.length)
        && write_all(request.connection, request.output.data, request.output.length);
    free(head.data);
    if (!written) {
        close(request.connection);
        request.connection = -1; /* the worker is gone: nothing more is sent */
    }
    request.head_sent = true;
    request.output.length = 0;
}

/* --- the SAPI's callbacks --- */

static int pool_startup(sapi_module_struct *module)
{
    return php_module_startup(module, NULL);
}

static size_t pool_ub_write(const char *bytes, size_t length)
{
    if (request.finished) {
        return length;
    }
    append(&request.output, bytes, length);
    if (request.output.length >= OUTPUT_CHUNK && request.head_captured) {
        send_frame(true);
    }
    return length;
}

static void pool_flush(void *server_context)
{
    (void) server_context;
    if (request.finished) {
        return;
    }
    /* As under PHP-FPM, a flush() before any output sends nothing: header() still works after it. */
    if (request.head_captured && (request.output.length > 0 || !request.head_sent)) {
        send_frame(true);
    }
}

static int pool_send_headers(sapi_headers_struct *headers)
{
    request.status = headers->http_response_code > 0 ? headers->http_response_code : 200;
    request.header_lines.length = 0;
    request.header_count = 0;
    zend_llist_position position;
    for (sapi_header_struct *header = zend_llist_get_first_ex(&headers->headers, &position); header != NULL;
         header = zend_llist_get_next_ex(&headers->headers, &position)) {
        append_u32(&request.header_lines, (uint32_t) header->header_len);
        append(&request.header_lines, header->header, header->header_len);
        request.header_count++;
    }
    request.head_captured = true;
    return SAPI_HEADER_SENT_SUCCESSFULLY;
}

static size_t pool_read_post(char *into, size_t count)
{
    if (request.body_left == 0 || request.connection < 0) {
        return 0;
    }
    if (count > request.body_left) {
        count = (size_t) request.body_left;
    }
    ssize_t got;
    do {
        got = read(request.connection, into, count);
    } while (got < 0 && errno == EINTR);
    if (got <= 0) {
        request.body_left = 0;
        return 0;
    }
    request.body_left -= (uint64_t) got;
    return (size_t) got;
}

static const char *variable(const char *name)
{
    for (uint32_t i = 0; i < request.count; i++) {
        if (strcmp(request.names[i], name) == 0) {
            return request.values[i];
        }
    }
    return NULL;
}

static char *pool_read_cookies(void)
{
    return (char *) variable("HTTP_COOKIE");
}

static void pool_register_variables(zval *track_vars)
{
    for (uint32_t i = 0; i < request.count; i++) {
        php_register_variable_safe(request.names[i], request.values[i], request.value_lengths[i], track_vars);
    }
}

static void pool_log_message(const char *message, int syslog_type)
{
    (void) syslog_type;
    fprintf(stderr, "%s\n", message);
    fflush(stderr);
}

/* PHP's own error handling, and the first fatal error's text for the worker's log. */
static void pool_error_cb(int type, zend_string *file, const uint32_t line, zend_string *message)
{
    if ((type & FATAL_TYPES) != 0 && request.fatal.length == 0) {
        char where[32];
        append(&request.fatal, ZSTR_VAL(message), ZSTR_LEN(message));
        append(&request.fatal, " in ", 4);
        if (file != NULL) {
            append(&request.fatal, ZSTR_VAL(file), ZSTR_LEN(file));
        }
        int length = snprintf(where, sizeof where, ":%u", line);
        append(&request.fatal, where, (size_t) length);
    }
    php_error_callback(type, file, line, message);
}

/* --- what PHP-FPM adds to PHP, for scripts written for it --- */

/* Sends the response now; the script runs on, its further output going nowhere. */
ZEND_FUNCTION(fastcgi_finish_request)
{
    ZEND_PARSE_PARAMETERS_NONE();
    if (request.finished) {
        RETURN_FALSE;
    }
    php_output_end_all();
    php_header();
    send_frame(false);
    request.finished = true;
    RETURN_TRUE;
}

/* The request's headers by name, as the client wrote them: rebuilt from the HTTP_* variables. */
ZEND_FUNCTION(getallheaders)
{
    ZEND_PARSE_PARAMETERS_NONE();
    array_init(return_value);
    for (uint32_t i = 0; i < request.count; i++) {
        const char *name = request.names[i];
        bool content = strcmp(name, "CONTENT_TYPE") == 0 || strcmp(name, "CONTENT_LENGTH") == 0;
        if (!content && strncmp(name, "HTTP_", 5) != 0) {
            continue;
        }
        const char *from = content ? name : name + 5;
        size_t length = strlen(from);
        char *header = emalloc(length + 1);
        bool word_start = true;
        for (size_t j = 0; j < length; j++) {
            char c = from[j] == '_' ? '-' : from[j];
            header[j] = word_start ? c : (char) tolower((unsigned char) c);
            word_start = c == '-';
        }
        header[length] = '\0';
        add_assoc_stringl_ex(return_value, header, length, request.values[i], request.value_lengths[i]);
        efree(header);
    }
}

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_fastcgi_finish_request, 0, 0, _IS_BOOL, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_getallheaders, 0, 0, IS_ARRAY, 0)
ZEND_END_ARG_INFO()

static const zend_function_entry pool_functions[] = {
    ZEND_FE(fastcgi_finish_request, arginfo_fastcgi_finish_request)
    ZEND_FE(getallheaders, arginfo_getallheaders)
    ZEND_FALIAS(apache_request_headers, getallheaders, arginfo_getallheaders)
    ZEND_FE_END
};

static sapi_module_struct pool_sapi = {
    /* opcache caches scripts only under the web SAPIs it knows; scripts see the one they were written for */
    .name = "fpm-fcgi",
    .pretty_name = "Bobbin legacy pool",
    .startup = pool_startup,
    .shutdown = php_module_shutdown_wrapper,
    .ub_write = pool_ub_write,
    .flush = pool_flush,
    .send_headers = pool_send_headers,
    .read_post = pool_read_post,
    .read_cookies = pool_read_cookies,
    .register_server_variables = pool_register_variables,
    .log_message = pool_log_message,
    .default_post_reader = NULL,
    .php_ini_ignore_cwd = 1,
    .additional_functions = pool_functions,
};

/* --- one request --- */

static bool read_request(int connection)
{
    unsigned char size_bytes[4];
    if (!read_all(connection, (char *) size_bytes, 4)) {
        return false;
    }
    uint32_t size = u32_at(size_bytes);
    if (size < 4 || size > MAX_VARIABLES_BLOCK) {
        return false;
    }
    request.variables = malloc(size + 1);
    if (request.variables == NULL || !read_all(connection, request.variables, size)) {
        return false;
    }
    const unsigned char *at = (const unsigned char *) request.variables;
    const unsigned char *end = at + size;
    request.count = u32_at(at);
    at += 4;
    if (request.count > size / 8) {
        return false;
    }
    request.names = calloc(request.count + 1, sizeof(char *));
    request.values = calloc(request.count + 1, sizeof(char *));
    request.value_lengths = calloc(request.count + 1, sizeof(uint32_t));
    if (request.names == NULL || request.values == NULL || request.value_lengths == NULL) {
        return false;
    }
    /* Each piece is NUL-terminated in place: its length field's first byte is not needed any more. */
    for (uint32_t i = 0; i < 2 * request.count; i++) {
        if (end - at < 4) {
            return false;
        }
        uint32_t length = u32_at(at);
        if ((uint64_t) (end - at - 4) < length) {
            return false;
        }
        char *piece = (char *) at + 4;
        /* Move the bytes back by one so that the NUL after them fits before the next field. */
        memmove((char *) at + 3, piece, length);
        ((char *) at)[3 + length] = '\0';
        if (i % 2 == 0) {
            request.names[i / 2] = (char *) at + 3;
        } else {
            request.values[i / 2] = (char *) at + 3;
            request.value_lengths[i / 2] = length;
        }
        at += 4 + length;
    }
    unsigned char body_bytes[8];
    if (!read_all(connection, (char *) body_bytes, 8)) {
        return false;
    }
    request.body_left = 0;
    for (int i = 0; i < 8; i++) {
        request.body_left = (request.body_left << 8) | body_bytes[i];
    }
    return true;
}

static void forget_request(void)
{
    free(request.variables);
    free(request.names);
    free(request.values);
    free(request.value_lengths);
    request.variables = NULL;
    request.names = request.values = NULL;
    request.value_lengths = NULL;
    request.count = 0;
    request.output.length = 0;
    request.header_lines.length = 0;
    request.header_count = 0;
    request.fatal.length = 0;
    request.head_captured = request.head_sent = request.finished = false;
    request.status = 200;
}

static void drain_body(void)
{
    char scrap[65536];
    while (request.body_left > 0 && request.connection >= 0) {
        if (pool_read_post(scrap, sizeof scrap) == 0) {
            break;
        }
    }
}

static void run_request(int connection)
{
    request.connection = connection;
    uint32_t pid = (uint32_t) getpid();
    unsigned char pid_bytes[4] = {pid >> 24, pid >> 16, pid >> 8, pid};
    if (!write_all(connection, (const char *) pid_bytes, 4) || !read_request(connection)) {
        forget_request();
        return;
    }
    const char *script = variable("SCRIPT_FILENAME");
    const char *protocol = variable("SERVER_PROTOCOL");
    const char *length = variable("CONTENT_LENGTH");
    SG(server_context) = &request; /* not NULL: PHP reads the body and the cookies of a request that has one */
    SG(request_info).request_method = variable("REQUEST_METHOD");
    SG(request_info).query_string = (char *) variable("QUERY_STRING");
    SG(request_info).request_uri = (char *) variable("REQUEST_URI");
    SG(request_info).path_translated = (char *) script;
    SG(request_info).content_type = variable("CONTENT_TYPE");
    SG(request_info).content_length = length != NULL ? atol(length) : (zend_long) request.body_left;
    SG(request_info).proto_num = protocol != NULL && strcmp(protocol, "HTTP/1.0") == 0 ? 1000 : 1100;
    SG(sapi_headers).http_response_code = 200;
    if (script == NULL || php_request_startup() == FAILURE) {
        request.head_captured = true;
        request.status = 500;
        append(&request.fatal, "PHP could not start the request", 31);
        send_frame(false);
        forget_request();
        return;
    }
    zend_file_handle file;
    zend_stream_init_filename(&file, script);
    php_execute_script(&file);
    zend_destroy_file_handle(&file);
    php_request_shutdown(NULL);
    SG(server_context) = NULL;
    if (!request.finished) {
        send_frame(false);
    }
    drain_body();
    forget_request();
}

static void serve(void)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    while (true) {
        int connection = accept(LISTEN_FD, NULL, NULL);
        if (connection < 0) {
            if (errno == EINTR || errno == ECONNABORTED) {
                continue;
            }
            perror("bobbin-legacy-pool: accept");
            _exit(71);
        }
        run_request(connection);
        if (request.connection >= 0) {
            close(request.connection);
        }
        request.connection = -1;
    }
}

/* --- the master --- */

static void on_stop(int signal_number)
{
    (void) signal_number;
    stopping = 1;
}

static pid_t start_child(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        serve();
    }
    return pid;
}

static double now(void)
{
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (double) time.tv_sec + (double) time.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    /* proc_open() hands over every descriptor of the worker: its listening socket, its clients'
     * connections. None of them is the pool's: a connection the worker closes must close. */
    close_range(LISTEN_FD + 1, ~0U, 0);
    int children = 2;
    buffer ini = {0};
    char *ini_file = NULL;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--children=", 11) == 0) {
            children = atoi(argv[i] + 11);
        } else if (strncmp(argv[i], "--ini=", 6) == 0) {
            ini_file = argv[i] + 6;
        } else if (strcmp(argv[i], "-d") == 0 && i + 1 < argc) {
            append(&ini, argv[i + 1], strlen(argv[i + 1]));
            append(&ini, "\n", 1);
            i++;
        } else {
            fprintf(stderr, "bobbin-legacy-pool: unknown argument %s\n", argv[i]);
            return 64;
        }
    }
    if (children < 1 || children > MAX_CHILDREN) {
        fputs("bobbin-legacy-pool: --children must be between 1 and 1024\n", stderr);
        return 64;
    }
    /* The worker that started it holds the other end of every request: the pool goes with it. */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() == 1) {
        return 0;
    }
    signal(SIGPIPE, SIG_IGN);
    append(&ini, "\0", 1);

#ifdef ZEND_SIGNALS
    zend_signal_startup();
#endif
    sapi_startup(&pool_sapi);
    pool_sapi.php_ini_path_override = ini_file;
    pool_sapi.php_ini_ignore = ini_file != NULL && ini_file[0] == '\0';
    pool_sapi.ini_entries = ini.data;
    if (pool_sapi.startup(&pool_sapi) == FAILURE) {
        fputs("bobbin-legacy-pool: PHP did not start\n", stderr);
        return 70;
    }
    php_error_callback = zend_error_cb;
    zend_error_cb = pool_error_cb;
    request.connection = -1;

    struct sigaction stop = {0};
    stop.sa_handler = on_stop;
    sigaction(SIGTERM, &stop, NULL);
    sigaction(SIGINT, &stop, NULL);

    pid_t pids[MAX_CHILDREN];
    for (int i = 0; i < children; i++) {
        pids[i] = start_child();
    }
    double window_start = now();
    int deaths_in_window = 0;
    while (!stopping) {
        int status;
        pid_t gone = waitpid(-1, &status, 0);
        if (gone < 0) {
            if (errno == EINTR) {
                continue;
            }
            break;
        }
        for (int i = 0; i < children; i++) {
            if (pids[i] != gone) {
                continue;
            }
            /* A child that dies at once again and again (a broken php.ini…) is not restarted in a tight loop. */
            if (now() - window_start > 1.0) {
                window_start = now();
                deaths_in_window = 0;
            }
            if (++deaths_in_window > children * 4) {
                sleep(1);
            }
            if (!stopping) {
                pids[i] = start_child();
            }
        }
    }
    for (int i = 0; i < children; i++) {
        if (pids[i] > 0) {
            kill(pids[i], SIGKILL);
        }
    }
    while (waitpid(-1, NULL, 0) > 0 || errno == EINTR) {
    }
    php_module_shutdown();
    sapi_shutdown();
    return 0;
}
