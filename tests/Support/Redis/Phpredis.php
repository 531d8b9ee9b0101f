<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Redis;

use Bobbin\Redis\ConnectionConfig;
use PHPUnit\Framework\TestCase;

/**
 * phpredis (Debian's php8.2-redis), the reference client nobody here wrote, connected to the
 * server behind a Bobbin URL. Its calls block the process: nothing of Bobbin's runs meanwhile.
 */
final class Phpredis
{
    public static function connect(string $url): \Redis
    {
        if (!\extension_loaded('redis')) {
            TestCase::markTestSkipped('phpredis is not installed (scripts/install-deps installs php8.2-redis)');
        }
        $config = ConnectionConfig::fromUrl($url);
        $redis = new \Redis();
        if ($config->unixSocket !== null) {
            $redis->connect($config->unixSocket);
        } else {
            $redis->connect($config->host, $config->port);
        }
        if ($config->password !== null) {
            $redis->auth($config->user === null ? [$config->password] : [$config->user, $config->password]);
        }
        $redis->select($config->database);

        return $redis;
    }
}
