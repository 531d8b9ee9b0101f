<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Redis;

use Bobbin\Redis\Message;
use Bobbin\Tests\Support\DocumentedReadonly;
use PHPUnit\Framework\TestCase;

/**
 * Message's properties are documented @readonly instead of declared readonly (the JIT writes a
 * readonly property through a slow helper, once per message received): what a caller reads,
 * the names, types and the constructor are as they were.
 */
final class MessageTest extends TestCase
{
    public function testItReadsAsBefore(): void
    {
        $message = new Message('news', 'hello', 'n*', true);
        self::assertSame(['news', 'hello', 'n*', true], [$message->channel, $message->payload, $message->pattern, $message->shard]);

        $plain = new Message('news', '');
        self::assertSame(['news', '', null, false], [$plain->channel, $plain->payload, $plain->pattern, $plain->shard]);
    }

    public function testThePropertiesKeepTheirNamesAndTypesAndAreDocumentedReadonly(): void
    {
        $types = DocumentedReadonly::propertyTypes(Message::class);
        self::assertSame(['channel' => 'string', 'payload' => 'string', 'pattern' => '?string', 'shard' => 'bool'], $types);

        $parameters = \array_map(static fn (\ReflectionParameter $p): string => $p->getName(), (new \ReflectionMethod(Message::class, '__construct'))->getParameters());
        self::assertSame(['channel', 'payload', 'pattern', 'shard'], $parameters);
    }
}
