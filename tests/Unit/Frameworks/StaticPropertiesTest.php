<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Frameworks;

use Bobbin\Frameworks\StaticProperties;
use PHPUnit\Framework\TestCase;

final class StaticPropertiesTest extends TestCase
{
    public function testRestorePutsBackEveryStaticPropertyAsItWasWhenCaptured(): void
    {
        StaticHolder::reset();
        $boot = StaticProperties::capture(StaticHolder::class);

        StaticHolder::$public = 'changed';
        StaticHolder::setHidden(['changed']);
        StaticHolder::$object = new \stdClass();
        $boot->restore();

        self::assertSame('boot', StaticHolder::$public);
        self::assertSame([], StaticHolder::hidden());
        self::assertNull(StaticHolder::$object);
    }

    public function testStaticPropertiesOfOtherClassesAreLeftAlone(): void
    {
        StaticHolder::reset();
        $boot = StaticProperties::capture(StaticHolder::class);
        OtherStaticHolder::$value = 'kept';

        $boot->restore();

        self::assertSame('kept', OtherStaticHolder::$value);
    }
}

final class StaticHolder
{
    public static string $public = 'boot';
    public static ?\stdClass $object = null;
    /** @var list<string> */
    private static array $hidden = [];

    public static function reset(): void
    {
        self::$public = 'boot';
        self::$object = null;
        self::$hidden = [];
    }

    /** @param list<string> $value */
    public static function setHidden(array $value): void
    {
        self::$hidden = $value;
    }

    /** @return list<string> */
    public static function hidden(): array
    {
        return self::$hidden;
    }
}

final class OtherStaticHolder
{
    public static string $value = '';
}
