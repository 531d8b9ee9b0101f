<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Internal;

use Bobbin\Mysql\Exception\ProtocolException;
use Bobbin\Mysql\Result;

/**
 * Reads the response to one command, packet by packet, as a state machine: OK, ERR, a LOCAL
 * INFILE request, one or more result sets (text or binary rows), or a prepared statement's
 * description. Pure: the connection feeds it payloads until accept() says the response is
 * complete. Its state lives in its fields, so a response abandoned halfway by its caller is
 * read to its end by the same object (with $discardRows) while the connection drains.
 *
 * @internal
 */
final class ResponseReader
{
    private const HEADER = 0;
    private const COLUMNS = 1;
    private const COLUMNS_EOF = 2;
    private const ROWS = 3;
    private const PREPARE_PARAMS = 4;
    private const PREPARE_PARAMS_EOF = 5;
    private const PREPARE_COLUMNS = 6;
    private const PREPARE_COLUMNS_EOF = 7;
    private const DONE = 8;
    private const PREPARE_OK = 9;

    /**
     * Column definitions by their raw packet (apart with and without MariaDB's extended
     * metadata): an executed statement sends the same ones every time.
     *
     * @var array<int, array<string, ColumnDefinition>>
     */
    private static array $columnCache = [[], []];

    private int $state;
    private int $columnCount = 0;
    /** @var list<ColumnDefinition> */
    private array $columns = [];
    /** @var list<array<string, mixed>> */
    private array $rows = [];
    /** @var list<Result> */
    private array $results = [];
    private int $paramsLeft = 0;

    public ?ServerError $error = null;
    /** The last status flags the server sent (transaction, more results, session state changed); null: none came (an ERR, a prepare). */
    public ?int $status = null;
    /** Set when the status flags of any packet reported a change of session state. */
    public bool $sessionStateChanged = false;
    /** The file a LOCAL INFILE request named: the connection refuses it with an empty packet. */
    public ?string $localInfileRequest = null;
    /** Rows are skipped, not decoded (a response read only to get the connection back in step). */
    public bool $discardRows = false;
    public int $statementId = 0;
    public int $parameterCount = 0;
    /**
     * MARIADB_CLIENT_CACHE_METADATA: the prepared statement being executed. Its columns are
     * those the server described last; when the server says they are unchanged it sends none,
     * and when it sends new ones they replace them here, as soon as they are read. Stored by the
     * reader, not by its caller: the server counts definitions as known once it has sent them,
     * also when the caller gave up and the rest of the response is only drained. Updating is
     * exact, where closing the statement would only be safe: what this reader read is what the
     * server sent, and a response cut short before its definitions changed nothing on either
     * side (a drain that cannot finish closes the connection, its statements with it).
     * Untyped: written per statement, and a class-typed write calls the JIT's checking helper.
     *
     * @var PreparedStatement|null
     */
    public $statement = null;
    private int $resultSets = 0;
    /** @var list<ColumnDefinition>|null */
    private ?array $lastColumns = null;
    /** @var list<ColumnDefinition>|null */
    private ?array $firstColumns = null;

    /*
     * Set once by the constructor, but neither readonly nor typed: a reader is made for every
     * statement, and PHP 8.2's tracing JIT leaves every readonly write to the interpreter
     * (docs/ASYNC.md, Rules). The constructor's parameters carry the types.
     */
    /** @var bool */
    private $binary;
    /** @var bool */
    private $deprecateEof;
    /** @var bool */
    private $extendedMetadata;
    /** @var bool */
    private $decodeJson;
    /** @var bool */
    private $cacheMetadata;

    public function __construct(bool $binary, bool $deprecateEof, bool $extendedMetadata, bool $decodeJson, bool $prepare = false, bool $cacheMetadata = false, ?PreparedStatement $statement = null)
    {
        $this->statement = $statement;
        $this->binary = $binary;
        $this->deprecateEof = $deprecateEof;
        $this->extendedMetadata = $extendedMetadata;
        $this->decodeJson = $decodeJson;
        $this->cacheMetadata = $cacheMetadata;
        $this->state = $prepare ? self::PREPARE_OK : self::HEADER;
    }

    public function isDone(): bool
    {
        return $this->state === self::DONE;
    }

    /**
     * Takes the next packet of the response; true once the response is complete.
     *
     * @throws ProtocolException
     */
    public function accept(string $payload): bool
    {
        $first = $payload === '' ? -1 : \ord($payload[0]);
        switch ($this->state) {
            case self::ROWS:
                if ($first === 0xfe && \strlen($payload) < Protocol::MAX_PACKET_PAYLOAD) {
                    return $this->endOfRows($payload);
                }
                if ($first === 0xff) {
                    return $this->fail($payload);
                }
                if (!$this->discardRows) {
                    $this->rows[] = $this->binary
                        ? RowDecoder::binary($payload, $this->columns, $this->decodeJson)
                        : RowDecoder::text($payload, $this->columns, $this->decodeJson);
                }

                return false;
            case self::HEADER:
                return $this->header($first, $payload);
            case self::COLUMNS:
            case self::PREPARE_COLUMNS:
                $this->columns[] = self::$columnCache[(int) $this->extendedMetadata][$payload] ??= $this->column($payload);
                if (\count($this->columns) < $this->columnCount) {
                    return false;
                }
                if ($this->state === self::PREPARE_COLUMNS) {
                    return $this->deprecateEof ? $this->finish() : $this->expectEof(self::PREPARE_COLUMNS_EOF);
                }
                if ($this->resultSets === 1 && $this->statement !== null) {
                    $this->statement->columns = $this->columns;
                }
                $this->state = $this->deprecateEof ? self::ROWS : self::COLUMNS_EOF;

                return false;
            case self::COLUMNS_EOF:
                $this->eof($payload);
                $this->state = self::ROWS;

                return false;
            case self::PREPARE_OK:
                return $this->prepareOk($first, $payload);
            case self::PREPARE_PARAMS:
                if (--$this->paramsLeft > 0) {
                    return false;
                }
                if (!$this->deprecateEof) {
                    $this->state = self::PREPARE_PARAMS_EOF;

                    return false;
                }

                return $this->afterParams();
            case self::PREPARE_PARAMS_EOF:
                $this->eof($payload);

                return $this->afterParams();
            case self::PREPARE_COLUMNS_EOF:
                $this->eof($payload);

                return $this->finish();
            default:
                throw new ProtocolException('A packet arrived after the response was complete');
        }
    }

    /**
     * The result sets read, first to last (a CALL sends its procedure's results, then a
     * final OK).
     *
     * @return list<Result>
     */
    public function results(): array
    {
        return $this->results;
    }

    /** The result when the response held exactly one (no CALL's further results), else null. */
    public function onlyResult(): ?Result
    {
        return \count($this->results) === 1 ? $this->results[0] : null;
    }

    /**
     * The columns of a prepared statement's result (empty for a statement without one), or of
     * the first result set of an execution.
     *
     * @return list<ColumnDefinition>
     */
    public function columns(): array
    {
        return $this->resultSets > 1 ? ($this->firstColumns ?? $this->columns) : $this->columns;
    }

    private function header(int $first, string $payload): bool
    {
        if ($first === 0x00) {
            // ServerStatus::fromOk() written out: an OK is the answer to every write.
            // Both counts under 251 (one byte each) is the common case: no calls.
            $affected = \ord($payload[1] ?? "\xff");
            $insertId = \ord($payload[2] ?? "\xff");
            $offset = 3;
            if ($affected >= 251 || $insertId >= 251) {
                $offset = 1;
                $affected = (int) Wire::readLengthEncodedInt($payload, $offset);
                $insertId = (int) Wire::readLengthEncodedInt($payload, $offset);
            }
            if ($insertId < 0) {
                $insertId = \sprintf('%u', $insertId); // an unsigned BIGINT id above PHP_INT_MAX
            }
            $status = $warnings = 0;
            if (isset($payload[$offset + 3])) {
                $status = \ord($payload[$offset]) | (\ord($payload[$offset + 1]) << 8);
                $warnings = \ord($payload[$offset + 2]) | (\ord($payload[$offset + 3]) << 8);
            }
            $this->status = $status;
            if (($status & Protocol::SERVER_SESSION_STATE_CHANGED) !== 0) {
                $this->sessionStateChanged = true;
            }
            $this->results[] = new Result([], $affected, $insertId, $warnings);
            if (($status & Protocol::SERVER_MORE_RESULTS_EXISTS) !== 0) {
                return false;
            }
            $this->state = self::DONE;

            return true;
        }
        if ($first === 0xff) {
            return $this->fail($payload);
        }
        if ($first === 0xfb) {
            // LOAD DATA LOCAL INFILE: the server asks the client for a file. Never sent; the
            // connection answers with an empty file and reports the refusal.
            $this->localInfileRequest = \substr($payload, 1);

            return false;
        }
        $offset = 1;
        if ($first < 251) {
            $this->columnCount = $first; // fewer than 251 columns: the count is this one byte
        } else {
            $offset = 0;
            $this->columnCount = (int) Wire::readLengthEncodedInt($payload, $offset);
        }
        if ($this->columnCount < 1) {
            throw new ProtocolException('A result set announced no columns (or 2^63 and more)');
        }
        $this->columns = [];
        $this->rows = [];
        $first = $this->resultSets++ === 0;
        if ($this->cacheMetadata && ($payload[$offset] ?? "\x01") === "\x00") {
            // The server says the columns are those it described before: no definitions follow.
            $known = $first ? $this->statement?->columns : $this->lastColumns;
            if ($known === null || \count($known) !== $this->columnCount) {
                throw new ProtocolException('The server skipped column definitions this client never received');
            }
            $this->columns = $known;
            $this->state = $this->deprecateEof ? self::ROWS : self::COLUMNS_EOF;

            return false;
        }
        $this->state = self::COLUMNS;

        return false;
    }

    private function endOfRows(string $payload): bool
    {
        $this->lastColumns = $this->columns;
        $this->firstColumns ??= $this->columns;
        if ($this->deprecateEof) {
            // An OK (0xFE): affected rows and insert id, each one byte when under 251, then status, warnings.
            if (isset($payload[6]) && \ord($payload[1]) < 251 && \ord($payload[2]) < 251) {
                $status = [\ord($payload[3]) | (\ord($payload[4]) << 8), \ord($payload[5]) | (\ord($payload[6]) << 8)];
            } else {
                $ok = ServerStatus::fromOk($payload);
                $status = [$ok->status, $ok->warnings];
            }
        } elseif (isset($payload[4])) {
            // ServerStatus::fromEof() without the object: 0xFE, warnings, status.
            $status = [\ord($payload[3]) | (\ord($payload[4]) << 8), \ord($payload[1]) | (\ord($payload[2]) << 8)];
        } else {
            $status = [0, 0];
        }
        $this->noteStatus($status[0]);
        $this->results[] = new Result($this->rows, \count($this->rows), 0, $status[1]);
        $this->rows = [];
        if (($status[0] & Protocol::SERVER_MORE_RESULTS_EXISTS) !== 0) {
            $this->state = self::HEADER;

            return false;
        }

        return $this->finish();
    }

    private function prepareOk(int $first, string $payload): bool
    {
        if ($first === 0xff) {
            return $this->fail($payload);
        }
        if ($first !== 0x00 || \strlen($payload) < 9) {
            throw new ProtocolException(\sprintf('Unexpected answer to a prepare (first byte 0x%02x)', $first));
        }
        /** @var array{id: int, columns: int, params: int} $fields */
        $fields = \unpack('Vid/vcolumns/vparams', $payload, 1);
        $this->statementId = $fields['id'];
        $this->columnCount = $fields['columns'];
        $this->parameterCount = $this->paramsLeft = $fields['params'];
        if ($this->paramsLeft > 0) {
            $this->state = self::PREPARE_PARAMS;

            return false;
        }

        return $this->afterParams();
    }

    private function afterParams(): bool
    {
        if ($this->columnCount === 0) {
            return $this->finish();
        }
        $this->state = self::PREPARE_COLUMNS;

        return false;
    }

    private function expectEof(int $state): bool
    {
        $this->state = $state;

        return false;
    }

    private function eof(string $payload): void
    {
        if ($payload === '' || $payload[0] !== "\xfe") {
            throw new ProtocolException('An EOF packet was expected after the column definitions');
        }
        $this->noteStatus(ServerStatus::fromEof($payload)->status);
    }

    private function fail(string $payload): bool
    {
        $this->error = ServerError::parse($payload);

        return $this->finish();
    }

    private function finish(): bool
    {
        $this->state = self::DONE;

        return true;
    }

    private function noteStatus(int $status): void
    {
        $this->status = $status;
        if (($status & Protocol::SERVER_SESSION_STATE_CHANGED) !== 0) {
            $this->sessionStateChanged = true;
        }
    }

    private function column(string $payload): ColumnDefinition
    {
        if (\count(self::$columnCache[(int) $this->extendedMetadata]) >= 4096) {
            self::$columnCache[(int) $this->extendedMetadata] = [];
        }

        return ColumnDefinition::parse($payload, $this->extendedMetadata);
    }
}
