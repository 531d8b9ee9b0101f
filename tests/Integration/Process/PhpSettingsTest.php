<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Process;

use Bobbin\Tests\Support\HttpClient;
use Bobbin\Tests\Support\Process\BobbinChild;
use PHPUnit\Framework\TestCase;

/** `php -d name=value bin/bobbin serve …`: the user's settings reach the workers. */
final class PhpSettingsTest extends TestCase
{
    public function testDashDSettingsSurviveTheOpcacheRelaunch(): void
    {
        if (!\extension_loaded('Zend OPcache') || \filter_var(\ini_get('opcache.enable_cli'), \FILTER_VALIDATE_BOOL)) {
            self::markTestSkipped('needs opcache loaded and off for the CLI, so that bin/bobbin relaunches PHP');
        }
        $child = new BobbinChild(
            ['serve', __DIR__ . '/../../Support/Process/ini-app.php', '--listen=127.0.0.1:0', '--workers=1', '--job-workers=0'],
            [],
            null,
            ['-d', 'default_socket_timeout=7', '-d', 'opcache.jit=disable', '-dprecision=11'],
        );
        try {
            $address = $child->awaitLog('/Listening on (\S+)/', 15.0, 'bin/bobbin serve did not start')[1];
            $port = (int) \substr($address, (int) \strrpos($address, ':') + 1);

            $response = (new HttpClient('127.0.0.1', $port))->request('GET', '/?a=default_socket_timeout&b=precision&c=opcache.jit&d=opcache.enable_cli');

            self::assertSame(200, $response->status, $child->log());
            self::assertSame(
                ['default_socket_timeout' => '7', 'precision' => '11', 'opcache.jit' => 'disable', 'opcache.enable_cli' => '1'],
                \json_decode($response->body, true),
                'the user\'s -d settings, the user\'s choice over Bobbin\'s default (opcache.jit), and the relaunch itself',
            );
        } finally {
            $child->stop();
        }
    }
}
