<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Aircraft;

use Bobbin\Tests\Support\Redis\EmbeddedRedis;

/** For the conformance runs with REDIS_URL set: the cache is really used, and dropped on PUT and DELETE. */
trait RedisCacheChecks
{
    public function testAFoundAircraftIsCachedAndPutAndDeleteRemoveIt(): void
    {
        $created = static::client()->json('POST', '/aircraft', static::aircraft('Cached'))->json();
        $key = 'aircraft:v1:' . $created['id'];
        EmbeddedRedis::cli('DEL', $key);

        self::assertSame(200, static::client()->request('GET', '/aircraft/' . $created['id'])->status);
        self::assertStringContainsString('"Cached"', EmbeddedRedis::cli('GET', $key));
        self::assertSame(200, static::client()->request('GET', '/aircraft/' . $created['id'])->status);

        $replaced = static::client()->json('PUT', '/aircraft/' . $created['id'], static::aircraft('Replaced'));
        self::assertSame(200, $replaced->status);
        self::assertSame('', EmbeddedRedis::cli('GET', $key));
        self::assertSame('Replaced', static::client()->request('GET', '/aircraft/' . $created['id'])->json()['title']);

        self::assertSame(204, static::client()->request('DELETE', '/aircraft/' . $created['id'])->status);
        self::assertSame('', EmbeddedRedis::cli('GET', $key));
        self::assertSame(404, static::client()->request('GET', '/aircraft/' . $created['id'])->status);
    }
}
