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
 * Usage: bobbin-legacy-pool --children=N [--ini=FILE] [--socket-path=PATH] [-d name=value]...
 * (fd 3: the listening socket; PATH: its file, removed as the pool ends)
 *
 * Written against PHP's public SAPI headers (main/SAPI.h, main/php_main.h).
 */
#include "pool.h"

#include <main/php_main.h>
#include <Zend/zend_signal.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LISTEN_FD 3
#define MAX_CHILDREN 1024

static volatile sig_atomic_t stopping = 0;

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
    char *socket_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--children=", 11) == 0) {
            children = atoi(argv[i] + 11);
        } else if (strncmp(argv[i], "--ini=", 6) == 0) {
            ini_file = argv[i] + 6;
        } else if (strncmp(argv[i], "--socket-path=", 14) == 0) {
            socket_path = argv[i] + 14;
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
    pool_install_error_callback();

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
    /* The worker removes the socket's file as it stops the pool; one killed outright cannot. */
    if (socket_path != NULL) {
        unlink(socket_path);
    }
    php_module_shutdown();
    sapi_shutdown();
    return 0;
}
