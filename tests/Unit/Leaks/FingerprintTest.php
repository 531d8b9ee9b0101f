<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Leaks;

use Bobbin\Leaks\Fingerprint;
use PHPUnit\Framework\TestCase;

final class FingerprintTest extends TestCase
{
    public function testEqualValuesHaveEqualFingerprintsAndAChangedOneDiffers(): void
    {
        self::assertSame(Fingerprint::of(['a' => 1, 'b' => [true, null, 1.5]]), Fingerprint::of(['a' => 1, 'b' => [true, null, 1.5]]));
        self::assertNotSame(Fingerprint::of(['a' => 1]), Fingerprint::of(['a' => '1']), 'types count');
        self::assertNotSame(Fingerprint::of(\str_repeat('x', 100)), Fingerprint::of(\str_repeat('x', 99) . 'y'));
    }

    public function testAChangeDeepInsideAnObjectsPrivateStateShows(): void
    {
        $service = new FingerprintedService();
        $before = Fingerprint::of($service);
        $service->remember('alice');

        self::assertNotSame($before, Fingerprint::of($service));
    }

    public function testCyclesEnd(): void
    {
        $a = new \stdClass();
        $a->self = $a;
        $a->list = [$a];

        self::assertSame(Fingerprint::of($a), Fingerprint::of($a));
    }

    public function testClosuresAreComparedByIdentity(): void
    {
        $f = static fn () => 1;

        self::assertSame(Fingerprint::of([$f]), Fingerprint::of([$f]));
        self::assertNotSame(Fingerprint::of([$f]), Fingerprint::of([static fn () => 1]));
    }
}

final class FingerprintedService
{
    /** @var array<string, list<string>> */
    private array $state = ['users' => []];

    public function remember(string $user): void
    {
        $this->state['users'][] = $user;
    }
}
