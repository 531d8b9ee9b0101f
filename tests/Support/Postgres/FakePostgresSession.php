<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Postgres;

/**
 * One session of the fake PostgreSQL server, over strings only: bytes from the client go in,
 * the bytes to send back come out. It speaks just enough of protocol v3 for libpq: startup with
 * trust authentication (SSL and GSS encryption declined), then Parse/Bind/Describe/Execute/Sync,
 * Close, Flush, simple Query and Terminate. A SELECT answers one int4 column "n" with the rows
 * 1 and 2; INSERT, UPDATE and DELETE report one row; any other statement only its tag.
 *
 * The first statement the session executes gets the scripted fault (FakeFault).
 */
final class FakePostgresSession
{
    private const PROTOCOL_3 = 196608;
    private const SSL_REQUEST = 80877103;
    private const GSSENC_REQUEST = 80877104;
    private const CANCEL_REQUEST = 80877102;
    private const INT4_OID = 23;

    private string $buffer = '';
    private bool $started = false;
    private bool $closed = false;
    private bool $faultDone = false;
    /** Set while the answer of the faulty statement waits for its Sync. */
    private bool $faultAtSync = false;
    private bool $farewellDue = false;
    /** After the farewell: input is read and ignored, as by a backend on its way out. */
    private bool $silent = false;
    /** @var array<string, string> prepared statement name => SQL */
    private array $statements = [];
    /** @var array<string, string> portal name => SQL */
    private array $portals = [];

    public function __construct(private readonly FakeFault $fault, private readonly int $pid)
    {
    }

    /** True once the session must end: the bytes last returned are its final words. */
    public function isClosed(): bool
    {
        return $this->closed;
    }

    /** For TerminateWhileIdle: whether the faulty statement has been answered and the FATAL is due. */
    public function owesFarewell(): bool
    {
        return $this->farewellDue;
    }

    /** The FATAL of a backend terminated while idle; the session answers nothing after it. */
    public function farewell(): string
    {
        $this->farewellDue = false;
        $this->silent = true;

        return self::terminated();
    }

    /** Takes bytes from the client and returns the answer (possibly empty) to send in one write. */
    public function receive(string $bytes): string
    {
        if ($this->silent) {
            return '';
        }
        $this->buffer .= $bytes;
        $out = '';
        while (!$this->closed && ($message = $this->nextMessage()) !== null) {
            $out .= $this->started ? $this->handle($message[0], $message[1]) : $this->startup($message[1]);
        }

        return $out;
    }

    /** @return array{string, string}|null type (empty in the startup phase) and body */
    private function nextMessage(): ?array
    {
        $header = $this->started ? 5 : 4;
        if (\strlen($this->buffer) < $header) {
            return null;
        }
        $type = $this->started ? $this->buffer[0] : '';
        $length = self::int32(\substr($this->buffer, $header - 4, 4));
        $total = $header - 4 + $length;
        if (\strlen($this->buffer) < $total) {
            return null;
        }
        $body = \substr($this->buffer, $header, $total - $header);
        $this->buffer = (string) \substr($this->buffer, $total);

        return [$type, $body];
    }

    private function startup(string $body): string
    {
        $code = self::int32(\substr($body, 0, 4));
        if ($code === self::SSL_REQUEST || $code === self::GSSENC_REQUEST) {
            return 'N';
        }
        if ($code !== self::PROTOCOL_3) {
            // A cancel request (or anything else): nothing is running to cancel.
            $this->closed = true;

            return '';
        }
        $this->started = true;
        $out = self::message('R', \pack('N', 0)); // AuthenticationOk: trust
        foreach ([
            'server_version' => '15.0 (fake)',
            'server_encoding' => 'UTF8',
            'client_encoding' => 'UTF8',
            'DateStyle' => 'ISO, MDY',
            'integer_datetimes' => 'on',
            'standard_conforming_strings' => 'on',
            'TimeZone' => 'UTC',
        ] as $name => $value) {
            $out .= self::message('S', "$name\0$value\0");
        }

        return $out . self::message('K', \pack('NN', $this->pid, 12345)) . self::readyForQuery();
    }

    private function handle(string $type, string $body): string
    {
        switch ($type) {
            case 'Q':
                return $this->simpleQuery(self::cstring($body, 0)[0]);
            case 'P':
                [$name, $offset] = self::cstring($body, 0);
                $this->statements[$name] = self::cstring($body, $offset)[0];

                return self::message('1', ''); // ParseComplete
            case 'B':
                [$portal, $offset] = self::cstring($body, 0);
                $this->portals[$portal] = $this->statements[self::cstring($body, $offset)[0]] ?? '';

                return self::message('2', ''); // BindComplete
            case 'D':
                $name = self::cstring($body, 1)[0];
                if ($body[0] === 'S') {
                    return self::message('t', \pack('n', 0)) . self::describe($this->statements[$name] ?? '');
                }

                return self::describe($this->portals[$name] ?? '');
            case 'E':
                return $this->execute($this->portals[self::cstring($body, 0)[0]] ?? '');
            case 'S':
                return $this->sync();
            case 'C':
                return self::message('3', ''); // CloseComplete
            case 'H':
                return '';
            case 'X':
                $this->closed = true;

                return '';
            default:
                $this->closed = true;

                return self::fatal('08P01', "fake server: unexpected message type '$type'");
        }
    }

    private function simpleQuery(string $sql): string
    {
        if (!$this->takeFault() || $this->fault === FakeFault::TerminateWhileIdle) {
            return self::describe($sql) . self::rows($sql) . self::readyForQuery();
        }
        $this->closed = true;

        return match ($this->fault) {
            FakeFault::TerminateAfterAnswer => self::describe($sql) . self::rows($sql) . self::readyForQuery() . self::terminated(),
            FakeFault::TerminateBeforeReady => self::describe($sql) . self::rows($sql) . self::terminated(),
            default => self::describe($sql) . self::dataRow('1'),
        };
    }

    private function execute(string $sql): string
    {
        if (!$this->takeFault()) {
            return self::rows($sql);
        }
        if ($this->fault === FakeFault::TerminateWhileIdle) {
            return self::rows($sql);
        }
        if ($this->fault === FakeFault::CloseMidResult) {
            $this->closed = true;

            // RowDescription went with Describe: one DataRow, and no CommandComplete.
            return self::dataRow('1');
        }
        $this->faultAtSync = true;

        return self::rows($sql);
    }

    private function sync(): string
    {
        if (!$this->faultAtSync) {
            return self::readyForQuery();
        }
        $this->faultAtSync = false;
        $this->closed = true;

        return ($this->fault === FakeFault::TerminateAfterAnswer ? self::readyForQuery() : '') . self::terminated();
    }

    /** Whether this statement is the one that gets the fault. */
    private function takeFault(): bool
    {
        if ($this->fault === FakeFault::None || $this->faultDone) {
            return false;
        }
        $this->faultDone = true;
        $this->farewellDue = $this->fault === FakeFault::TerminateWhileIdle;

        return true;
    }

    /** RowDescription for a SELECT, NoData for anything else. */
    private static function describe(string $sql): string
    {
        if (self::keyword($sql) !== 'SELECT') {
            return self::message('n', '');
        }

        return self::message('T', \pack('n', 1) . "n\0" . \pack('NnNnNn', 0, 0, self::INT4_OID, 4, 0xFFFFFFFF, 0));
    }

    /** DataRows (for a SELECT) and CommandComplete. */
    private static function rows(string $sql): string
    {
        $keyword = self::keyword($sql);

        return match ($keyword) {
            'SELECT' => self::dataRow('1') . self::dataRow('2') . self::commandComplete('SELECT 2'),
            'INSERT' => self::commandComplete('INSERT 0 1'),
            'UPDATE', 'DELETE' => self::commandComplete("$keyword 1"),
            default => self::commandComplete($keyword),
        };
    }

    private static function keyword(string $sql): string
    {
        \preg_match('/^\s*(\w+)/', $sql, $m);

        return \strtoupper($m[1] ?? '');
    }

    private static function dataRow(string $value): string
    {
        return self::message('D', \pack('nN', 1, \strlen($value)) . $value);
    }

    private static function commandComplete(string $tag): string
    {
        return self::message('C', "$tag\0");
    }

    private static function readyForQuery(): string
    {
        return self::message('Z', 'I');
    }

    /** What a backend ended by pg_terminate_backend() sends before closing. */
    private static function terminated(): string
    {
        return self::fatal('57P01', 'terminating connection due to administrator command');
    }

    private static function fatal(string $sqlState, string $text): string
    {
        return self::message('E', "SFATAL\0VFATAL\0C$sqlState\0M$text\0\0");
    }

    private static function message(string $type, string $body): string
    {
        return $type . \pack('N', \strlen($body) + 4) . $body;
    }

    private static function int32(string $bytes): int
    {
        return (int) \unpack('N', $bytes)[1];
    }

    /** @return array{string, int} the NUL-terminated string at $offset, and the offset after it */
    private static function cstring(string $body, int $offset): array
    {
        $end = \strpos($body, "\0", $offset);
        if ($end === false) {
            $end = \strlen($body);
        }

        return [\substr($body, $offset, $end - $offset), $end + 1];
    }
}
