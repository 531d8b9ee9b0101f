<?php

declare(strict_types=1);

namespace Bobbin\MessagePack\Extension;

/**
 * One error of Tarantool's error stack (box.error): what the server sends in an error response
 * (IPROTO_ERROR) and as a value (ext type 3). $previous is its cause, the next one down the stack.
 */
final class BoxError
{
    /** @param array<int|string, mixed> $fields type-specific details (MP_ERROR_FIELDS) */
    public function __construct(
        public readonly string $type,
        public readonly string $message,
        public readonly int $code = 0,
        public readonly string $file = '',
        public readonly int $line = 0,
        public readonly int $errno = 0,
        public readonly array $fields = [],
        public readonly ?BoxError $previous = null,
    ) {
    }

    /**
     * The stack as the protocol's map carries it ({MP_ERROR_STACK: [{MP_ERROR_TYPE: …}, …]}),
     * the first entry on top.
     *
     * @throws \UnexpectedValueException when $map is not such a stack
     */
    public static function fromMap(mixed $map): self
    {
        $stack = \is_array($map) ? ($map[0] ?? null) : null;
        if (!\is_array($stack) || $stack === [] || !\array_is_list($stack)) {
            throw new \UnexpectedValueException('An error stack is a map holding a non-empty array under key 0');
        }
        $error = null;
        foreach (\array_reverse($stack) as $entry) {
            if (!\is_array($entry)) {
                throw new \UnexpectedValueException('An error stack entry is a map');
            }
            $fields = $entry[6] ?? [];
            $error = new self(
                self::text($entry[0] ?? ''),
                self::text($entry[3] ?? ''),
                \is_int($entry[5] ?? null) ? $entry[5] : 0,
                self::text($entry[1] ?? ''),
                \is_int($entry[2] ?? null) ? $entry[2] : 0,
                \is_int($entry[4] ?? null) ? $entry[4] : 0,
                \is_array($fields) ? $fields : [],
                $error,
            );
        }
        /** @var self $error (the stack is not empty) */
        return $error;
    }

    /** @return array<int, mixed> the stack as the protocol's map */
    public function toMap(): array
    {
        $stack = [];
        for ($error = $this; $error !== null; $error = $error->previous) {
            $entry = [0 => $error->type, 1 => $error->file, 2 => $error->line, 3 => $error->message, 4 => $error->errno, 5 => $error->code];
            if ($error->fields !== []) {
                $entry[6] = $error->fields;
            }
            $stack[] = $entry;
        }

        return [0 => $stack];
    }

    private static function text(mixed $value): string
    {
        return \is_string($value) ? $value : '';
    }
}
