<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Fuzz;

use PHPUnit\Framework\Assert;
use Random\Engine\Xoshiro256StarStar;
use Random\Randomizer;

/**
 * Seeded, reproducible inputs for the wire codecs' fuzz tests (docs/SECURITY.md, "Hostile
 * servers and peers"), and the one check every case passes: the decoder ends, within a time and
 * a memory bound, in a value or in the codec's own exception — never another Throwable, never a
 * PHP warning, notice or deprecation (turned into exceptions while the decoder runs).
 *
 * BOBBIN_FUZZ_SEED reruns a failed run (every failure prints it, with the input as hex);
 * BOBBIN_FUZZ_CASES sets how many generated cases each fuzz test runs (CI: the default);
 * BOBBIN_FUZZ_REPORT=1 prints how many cases ran in all.
 * Each test draws from its own stream (the seed mixed with the test's name), so one test's
 * inputs do not change when another test draws more.
 */
final class Fuzzer
{
    /** The seed CI runs with: a run that passes passes again. BOBBIN_FUZZ_SEED=random explores. */
    public const DEFAULT_SEED = 36_005;
    public const DEFAULT_CASES = 300;
    /** Per case, on a shared CI machine; a decoder stuck in a loop takes far longer. */
    public const TIME_LIMIT_SECONDS = 2.0;
    /** What a case may allocate beyond its input: values built from the input are proportional to it. */
    public const MEMORY_BASE_BYTES = 4 * 1024 * 1024;
    public const MEMORY_PER_INPUT_BYTE = 64;

    /** A case whose allocation outgrows this is cut by PHP's fatal error (its input printed at shutdown). */
    private const HARD_MEMORY_BYTES = 256 * 1024 * 1024;

    /** @var array{string, int, string}|null the case running now: what the shutdown report prints after a fatal error */
    private static ?array $inFlight = null;
    /** Cases checked in this process, every fuzz test together (BOBBIN_FUZZ_REPORT=1 prints it at the end). */
    private static int $total = 0;

    public readonly int $seed;
    public readonly int $cases;
    private readonly Randomizer $random;
    private int $checked = 0;

    public function __construct(public readonly string $name)
    {
        $this->seed = self::baseSeed();
        $this->cases = self::caseCount();
        $this->random = new Randomizer(new Xoshiro256StarStar(\hash('sha256', $this->seed . '/' . $name, true)));
        static $reporting = false;
        if (!$reporting) {
            $reporting = true;
            \register_shutdown_function(static function (): void {
                if (\getenv('BOBBIN_FUZZ_REPORT') === '1') {
                    \fwrite(\STDERR, \sprintf("\nFuzz: %d cases checked (BOBBIN_FUZZ_SEED=%d, BOBBIN_FUZZ_CASES=%d)\n", self::$total, self::baseSeed(), self::caseCount()));
                }
                if (self::$inFlight !== null) {
                    [$name, $seed, $input] = self::$inFlight;
                    \fwrite(\STDERR, \sprintf("\nFuzz case of %s ended the process (BOBBIN_FUZZ_SEED=%d); input (hex): %s\n", $name, $seed, \bin2hex(\substr($input, 0, 4096))));
                }
            });
        }
    }

    public static function baseSeed(): int
    {
        static $seed = null;
        if ($seed === null) {
            $given = \getenv('BOBBIN_FUZZ_SEED');
            $seed = match (true) {
                $given === false || $given === '' => self::DEFAULT_SEED,
                $given === 'random' => \random_int(1, \PHP_INT_MAX),
                \ctype_digit($given) => (int) $given,
                default => throw new \InvalidArgumentException('BOBBIN_FUZZ_SEED is a number or "random"'),
            };
        }

        return $seed;
    }

    public static function caseCount(): int
    {
        $given = \getenv('BOBBIN_FUZZ_CASES');

        return \is_string($given) && \ctype_digit($given) && $given !== '0' ? (int) $given : self::DEFAULT_CASES;
    }

    /** How many cases check() ran so far: the figure docs/SECURITY.md reports. */
    public function checked(): int
    {
        return $this->checked;
    }

    public function int(int $min, int $max): int
    {
        return $this->random->getInt($min, $max);
    }

    public function chance(int $percent): bool
    {
        return $this->random->getInt(1, 100) <= $percent;
    }

    /**
     * @template T
     * @param list<T> $items
     * @return T
     */
    public function pick(array $items): mixed
    {
        if ($items === []) {
            throw new \LogicException('Nothing to pick from');
        }

        return $items[$this->random->getInt(0, \count($items) - 1)];
    }

    public function bytes(int $length): string
    {
        return $length < 1 ? '' : $this->random->getBytes($length);
    }

    /** Random bytes, mostly short, now and then up to $max. */
    public function randomInput(int $max = 4096): string
    {
        return $this->bytes($this->chance(80) ? $this->int(0, 64) : $this->int(0, $max));
    }

    /** Bytes from $alphabet: random input a text protocol's parser gets past its first byte. */
    public function textInput(string $alphabet, int $max = 256): string
    {
        $length = $this->int(0, $max);
        $text = '';
        for ($i = 0; $i < $length; $i++) {
            $text .= $alphabet[$this->int(0, \strlen($alphabet) - 1)];
        }

        return $text;
    }

    /**
     * $valid with one to four mutations: bit flips, bytes inserted, deleted, duplicated or set
     * to a boundary value, a truncation, or a splice with $others.
     *
     * @param list<string> $others valid frames to splice from
     */
    public function mutate(string $valid, array $others = []): string
    {
        $bytes = $valid;
        for ($round = $this->int(1, 4); $round > 0; $round--) {
            $bytes = $this->mutateOnce($bytes, $others);
        }

        return $bytes;
    }

    /**
     * Each piece of $bytes cut at random points: what a socket hands a streaming parser.
     *
     * @return list<string>
     */
    public function chunks(string $bytes): array
    {
        $pieces = [];
        $offset = 0;
        while ($offset < \strlen($bytes)) {
            $size = $this->chance(30) ? 1 : $this->int(1, \max(1, \intdiv(\strlen($bytes), 3)));
            $pieces[] = \substr($bytes, $offset, $size);
            $offset += $size;
        }

        return $pieces;
    }

    /**
     * Runs $decode on $input and checks how it ends: a value (returned), or an exception of
     * $allowed (returned), within the time and memory bounds. Anything else fails the test with
     * the seed and the input as hex.
     *
     * @param \Closure(string): mixed $decode
     * @param class-string<\Throwable> $allowed
     * @param int|null $memoryBound bytes the case may allocate; by default a base plus a multiple of the input
     */
    public function check(string $input, \Closure $decode, string $allowed, ?int $memoryBound = null): mixed
    {
        $this->checked++;
        self::$total++;
        $memoryBound ??= self::MEMORY_BASE_BYTES + self::MEMORY_PER_INPUT_BYTE * \strlen($input);
        \set_error_handler(static function (int $level, string $message, string $file, int $line): bool {
            if ((\error_reporting() & $level) === 0) {
                return false; // silenced with @ on purpose by the codec
            }
            throw new \ErrorException($message, 0, $level, $file, $line);
        });
        \gc_collect_cycles();
        $before = \memory_get_usage();
        $limit = (string) \ini_get('memory_limit');
        \ini_set('memory_limit', (string) ($before + self::HARD_MEMORY_BYTES));
        self::$inFlight = [$this->name, $this->seed, $input];
        \memory_reset_peak_usage();
        $started = \hrtime(true);
        $outcome = null;
        try {
            $outcome = $decode($input);
        } catch (\Throwable $e) {
            if (!$e instanceof $allowed) {
                $this->fail($input, \sprintf('%s instead of a value or %s: %s at %s:%d', $e::class, $allowed, $e->getMessage(), $e->getFile(), $e->getLine()));
            }
            $outcome = $e;
        } finally {
            \restore_error_handler();
            \ini_set('memory_limit', $limit);
            self::$inFlight = null;
        }
        $seconds = (\hrtime(true) - $started) / 1e9;
        $allocated = \memory_get_peak_usage() - $before;
        if ($seconds > self::TIME_LIMIT_SECONDS) {
            $this->fail($input, \sprintf('it took %.2f s (bound %.1f s)', $seconds, self::TIME_LIMIT_SECONDS));
        }
        if ($allocated > $memoryBound) {
            $this->fail($input, \sprintf('it allocated %d bytes (bound %d)', $allocated, $memoryBound));
        }

        return $outcome;
    }

    /**
     * check() for a streaming decoder: $input fed whole, then in random pieces, must give the
     * same values and end the same way (a frame split across reads is the same frame).
     *
     * @param \Closure(list<string>): array{list<mixed>, ?\Throwable} $feed a fresh decoder fed the pieces in order:
     *        every value it yields, and what it threw (it stops there)
     * @param class-string<\Throwable> $allowed
     */
    public function checkStream(string $input, \Closure $feed, string $allowed, ?int $memoryBound = null): mixed
    {
        return $this->check($input, function (string $bytes) use ($feed): array {
            [$whole, $wholeError] = $feed([$bytes]);
            [$pieces, $piecesError] = $feed($this->chunks($bytes));
            if (\serialize($whole) !== \serialize($pieces) || ($wholeError === null) !== ($piecesError === null)) {
                throw new \LogicException(\sprintf(
                    'fed whole it gave %d values and %s, fed in pieces %d values and %s',
                    \count($whole),
                    $wholeError === null ? 'no error' : $wholeError::class . ': ' . $wholeError->getMessage(),
                    \count($pieces),
                    $piecesError === null ? 'no error' : $piecesError::class . ': ' . $piecesError->getMessage(),
                ));
            }
            if ($wholeError !== null) {
                throw $wholeError;
            }

            return $whole;
        }, $allowed, $memoryBound);
    }

    /** Fails the test, naming what reruns it. */
    public function fail(string $input, string $why): never
    {
        Assert::fail(\sprintf(
            "Fuzz case %d of %s failed: %s\nRerun: BOBBIN_FUZZ_SEED=%d BOBBIN_FUZZ_CASES=%d vendor/bin/phpunit --filter %s\nInput (%d bytes, hex): %s",
            $this->checked,
            $this->name,
            $why,
            $this->seed,
            $this->cases,
            \escapeshellarg((string) \preg_replace('/^.*::/', '', $this->name)),
            \strlen($input),
            \bin2hex(\strlen($input) > 4096 ? \substr($input, 0, 4096) . '…' : $input),
        ));
    }

    /** @param list<string> $others */
    private function mutateOnce(string $bytes, array $others): string
    {
        $length = \strlen($bytes);
        $at = $this->int(0, $length);
        switch ($length === 0 ? 2 : $this->int(0, 7)) {
            case 0: // flip one bit
                $i = $this->int(0, $length - 1);

                return \substr_replace($bytes, \chr(\ord($bytes[$i]) ^ (1 << $this->int(0, 7))), $i, 1);
            case 1: // a byte set to a boundary value
                $i = $this->int(0, $length - 1);

                return \substr_replace($bytes, $this->pick(["\x00", "\x01", "\x7f", "\x80", "\xfe", "\xff", "\r", "\n", ' ', '-', '9']), $i, 1);
            case 2: // bytes inserted
                return \substr_replace($bytes, $this->chance(50) ? $this->bytes($this->int(1, 8)) : \str_repeat("\xff", $this->int(1, 8)), $at, 0);
            case 3: // bytes deleted
                return \substr_replace($bytes, '', $at, $this->int(1, 8));
            case 4: // truncated
                return \substr($bytes, 0, $at);
            case 5: // a range duplicated
                return \substr_replace($bytes, \substr($bytes, $at, $this->int(1, 16)), $at, 0);
            case 6: // four bytes set to a boundary integer (a length or a count, wherever it lands)
                return \substr_replace($bytes, $this->pick(["\xff\xff\xff\xff", "\x00\x00\x00\x80", "\xff\xff\xff\x7f", "\x00\x00\x00\x00", "\xfe\xff\xff\xff"]), $at, 4);
            default: // spliced with another frame
                if ($others === []) {
                    return \substr($bytes, $at) . \substr($bytes, 0, $at);
                }
                $other = $this->pick($others);

                return \substr($bytes, 0, $at) . \substr($other, $this->int(0, \strlen($other)));
        }
    }
}
