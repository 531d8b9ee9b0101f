<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Internal;

use Bobbin\Tarantool\Exception\ProtocolException;
use Bobbin\Tarantool\PreparedStatement;
use Bobbin\Tarantool\SqlResult;

/**
 * The answers of EXECUTE and PREPARE as values. Pure.
 *
 * @internal
 */
final class SqlDecoder
{
    /**
     * Positional parameters as a list; named ones (a map) as the protocol's list of one-entry
     * maps, a name without its sigil getting ':'.
     *
     * @param array<int|string, mixed> $parameters
     * @return list<mixed>
     */
    public static function bindings(array $parameters): array
    {
        if (\array_is_list($parameters)) {
            return $parameters;
        }
        $bindings = [];
        foreach ($parameters as $name => $value) {
            if (\is_int($name)) {
                throw new \ValueError('SQL parameters are either all positional or all named');
            }
            $bindings[] = [(\in_array($name[0] ?? '', [':', '@', '$'], true) ? $name : ':' . $name) => $value];
        }

        return $bindings;
    }

    public static function result(Response $response): SqlResult
    {
        $columns = self::columns($response->body[Iproto::METADATA] ?? []);
        $info = $response->body[Iproto::SQL_INFO] ?? [];
        $rows = [];
        if ($columns !== []) {
            $names = \array_column($columns, 'name');
            foreach ($response->data() as $row) {
                if (!\is_array($row) || \count($row) !== \count($names)) {
                    throw new ProtocolException('An SQL row does not match its metadata');
                }
                $rows[] = \array_combine($names, $row);
            }
        }
        $count = \is_array($info) && \is_int($info[Iproto::SQL_INFO_ROW_COUNT] ?? null) ? $info[Iproto::SQL_INFO_ROW_COUNT] : \count($rows);
        $ids = \is_array($info) && \is_array($info[Iproto::SQL_INFO_AUTOINCREMENT_IDS] ?? null) ? $info[Iproto::SQL_INFO_AUTOINCREMENT_IDS] : [];

        return new SqlResult($rows, $columns, $count, \array_values(\array_filter($ids, \is_int(...))));
    }

    public static function prepared(string $sql, Response $response): PreparedStatement
    {
        $id = $response->body[Iproto::STMT_ID] ?? null;
        if (!\is_int($id)) {
            throw new ProtocolException('A PREPARE answer without a statement id');
        }

        return new PreparedStatement(
            $sql,
            $id,
            self::columns($response->body[Iproto::BIND_METADATA] ?? []),
            self::columns($response->body[Iproto::METADATA] ?? []),
        );
    }

    /** @return list<array{name: string, type: string}> */
    private static function columns(mixed $metadata): array
    {
        $columns = [];
        foreach (\is_array($metadata) ? $metadata : [] as $field) {
            if (!\is_array($field) || !\is_string($field[Iproto::FIELD_NAME] ?? null)) {
                throw new ProtocolException('SQL metadata without a field name');
            }
            $type = $field[Iproto::FIELD_TYPE] ?? '';
            $columns[] = ['name' => $field[Iproto::FIELD_NAME], 'type' => \is_string($type) ? $type : ''];
        }

        return $columns;
    }
}
