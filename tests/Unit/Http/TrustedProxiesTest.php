<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http;

use Bobbin\Http\InvalidConfigException;
use Bobbin\Http\TrustedProxies;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** Whose X-Forwarded-* headers count, and which client they name. */
final class TrustedProxiesTest extends TestCase
{
    /** @return iterable<string, array{string, string, bool}> */
    public static function memberships(): iterable
    {
        yield 'an exact IPv4 address' => ['127.0.0.1', '127.0.0.1', true];
        yield 'another IPv4 address' => ['127.0.0.1', '127.0.0.2', false];
        yield 'inside a /8' => ['10.0.0.0/8', '10.200.3.4', true];
        yield 'outside a /8' => ['10.0.0.0/8', '11.0.0.1', false];
        yield 'inside a /20 (a partial byte)' => ['192.168.16.0/20', '192.168.31.255', true];
        yield 'outside a /20' => ['192.168.16.0/20', '192.168.32.0', false];
        yield 'IPv6 inside a /64' => ['2001:db8::/64', '2001:db8::1234', true];
        yield 'IPv6 outside' => ['2001:db8::/64', '2001:db9::1', false];
        yield 'an IPv4 address against an IPv6 range' => ['::/0', '1.2.3.4', false];
        yield 'not an address' => ['0.0.0.0/0', 'localhost', false];
    }

    #[DataProvider('memberships')]
    public function testAddressesAreMatchedAgainstAddressesAndRanges(string $list, string $address, bool $trusted): void
    {
        self::assertSame($trusted, TrustedProxies::fromList($list)->contains($address));
    }

    public function testTheClientIsTheRightmostAddressThatIsNotATrustedProxy(): void
    {
        $proxies = TrustedProxies::fromList('127.0.0.1, 10.0.0.0/8');

        self::assertSame('203.0.113.7', $proxies->clientAddress('127.0.0.1', '198.51.100.1, 203.0.113.7, 10.1.1.1'));
        self::assertSame('198.51.100.1', $proxies->clientAddress('127.0.0.1', 'spoofed, 198.51.100.1'));
        self::assertSame('10.1.1.1', $proxies->clientAddress('127.0.0.1', 'garbage, 10.1.1.1'));
    }

    public function testAnUntrustedPeerIsTheClientWhateverItForwards(): void
    {
        self::assertSame('203.0.113.9', TrustedProxies::fromList('127.0.0.1')->clientAddress('203.0.113.9', '1.2.3.4'));
    }

    /** @return iterable<string, array{string}> */
    public static function invalidLists(): iterable
    {
        yield 'a host name' => ['proxy.local'];
        yield 'a prefix too long' => ['10.0.0.0/33'];
        yield 'a prefix that is no number' => ['10.0.0.0/x'];
    }

    #[DataProvider('invalidLists')]
    public function testAnythingButAddressesAndRangesIsRefused(string $list): void
    {
        $this->expectException(InvalidConfigException::class);

        TrustedProxies::fromList($list);
    }
}
