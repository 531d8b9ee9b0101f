<?php

declare(strict_types=1);

namespace Bobbin\Bench\Server;

/**
 * An nginx for a standalone bench script (static files, TLS) to compare with: one worker process
 * in the foreground, no master, every file it writes under $work. The caller gives what goes
 * inside `http { }` beside the shared settings (its server block, sendfile, keep-alive…).
 */
final class ForegroundNginx
{
    /** @return list<string> the command that runs it, its configuration written as $work/$name.conf */
    public static function command(string $work, string $name, int $port, string $http): array
    {
        @\mkdir("$work/tmp", 0777, true);
        $conf = "$work/$name.conf";
        \file_put_contents($conf, <<<NGINX
            daemon off;
            master_process off;
            worker_processes 1;
            pid $work/nginx-$port.pid;
            error_log $work/nginx-$port.error.log warn;
            events { worker_connections 4096; }
            http {
                access_log off;
                client_body_temp_path $work/tmp; proxy_temp_path $work/tmp; fastcgi_temp_path $work/tmp;
                uwsgi_temp_path $work/tmp; scgi_temp_path $work/tmp;
            $http
            }
            NGINX);

        return ['nginx', '-e', "$work/nginx-$port.error.log", '-c', $conf, '-p', $work];
    }
}
