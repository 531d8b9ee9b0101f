<?php

declare(strict_types=1);

/*
 * An application whose routes each leave one kind of state behind, for --detect-leaks
 * (DATABASE_URL in the environment):
 *   /clean  leaves nothing          /static   a static property       /singleton  a singleton's field
 *   /global a global variable       /ini      an ini setting          /timezone   the default timezone
 *   /locale the locale              /ob       an open output buffer   /timer      a pending timer
 *   /connection a pooled connection kept          /transaction  a BEGIN without COMMIT
 */

use Bobbin\Async\Timer;
use Bobbin\Http\Message\Response;
use Bobbin\Postgres\ConnectionPool;
use Bobbin\Postgres\PoolConfig;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;

final class LeakyCart
{
    /** @var list<string> */
    public static array $items = [];
}

final class LeakySession
{
    private static ?self $instance = null;
    public string $user = '';

    public static function instance(): self
    {
        return self::$instance ??= new self();
    }
}

final class HeldConnections
{
    /** @var list<object> */
    public static array $held = [];
}

$pool = new ConnectionPool(PoolConfig::fromConnectionString((string) \getenv('DATABASE_URL'), maxSize: 4));
LeakySession::instance();

return static function (ServerRequestInterface $request) use ($pool): ResponseInterface {
    $user = (string) ($request->getQueryParams()['user'] ?? 'alice');
    switch ($request->getUri()->getPath()) {
        case '/clean':
            $pool->query('SELECT 1');
            break;
        case '/static':
            LeakyCart::$items[] = $user;
            break;
        case '/singleton':
            LeakySession::instance()->user = $user;
            break;
        case '/global':
            $GLOBALS['currentUser'] = $user;
            break;
        case '/ini':
            \ini_set('default_socket_timeout', '7');
            break;
        case '/timezone':
            \date_default_timezone_set('Asia/Tokyo');
            break;
        case '/locale':
            \setlocale(\LC_ALL, 'C.UTF-8');
            break;
        case '/ob':
            \ob_start();
            break;
        case '/timer':
            Timer::after(600, static fn () => null);
            break;
        case '/connection':
            HeldConnections::$held[] = $pool->acquire();
            break;
        case '/transaction':
            $pool->query('BEGIN');
            break;
        default:
            return new Response(404);
    }

    return new Response(200, ['Content-Type' => 'text/plain'], 'ok');
};
