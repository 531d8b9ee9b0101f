<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Nats;

use Bobbin\Nats\Headers;
use Bobbin\Nats\Message;
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
        $headers = Headers::decode("NATS/1.0 503\r\nA: b\r\n\r\n");
        $message = new Message('orders.new', 7, '_INBOX.1', 'hello', $headers);
        self::assertSame(['orders.new', 7, '_INBOX.1', 'hello', $headers], [$message->subject, $message->sid, $message->replyTo, $message->payload, $message->headers]);
        self::assertSame([503, 'b'], [$message->status(), $message->header('A')]);

        $plain = new Message('orders.new', 1, null, '');
        self::assertSame([null, null, null], [$plain->replyTo, $plain->headers, $plain->status()]);
    }

    public function testThePropertiesKeepTheirNamesAndTypesAndAreDocumentedReadonly(): void
    {
        $types = DocumentedReadonly::propertyTypes(Message::class);
        self::assertSame(['subject' => 'string', 'sid' => 'int', 'replyTo' => '?string', 'payload' => 'string', 'headers' => '?' . Headers::class], $types);

        $parameters = \array_map(static fn (\ReflectionParameter $p): string => $p->getName(), (new \ReflectionMethod(Message::class, '__construct'))->getParameters());
        self::assertSame(['subject', 'sid', 'replyTo', 'payload', 'headers'], $parameters);
    }
}
