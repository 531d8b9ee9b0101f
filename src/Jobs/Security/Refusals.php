<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Security;

use Psr\Log\LoggerInterface;

/**
 * The job messages this process refused, by reason (bobbin_jobs_refused_messages_total), and a
 * warning the first time each source sends one: an attacker (or a host with the wrong key) that
 * keeps sending fills no log. The sources remembered are bounded; past the bound new ones are
 * counted only, and that is said once.
 */
final class Refusals
{
    private const MAX_SOURCES = 1000;

    private static ?self $shared = null;

    /** @var array<string, int> by RefusalReason value */
    private array $counts = [];
    /** @var array<string, true> */
    private array $sources = [];
    private bool $sourcesFull = false;
    private ?LoggerInterface $logger = null;

    /** This process's refusals: every transport and job worker in it reports here. */
    public static function shared(): self
    {
        return self::$shared ??= new self();
    }

    /** Where the warnings go (the server's logger); without one, PHP's error_log(). */
    public function useLogger(?LoggerInterface $logger): void
    {
        $this->logger = $logger;
    }

    /**
     * Counts one refused message and warns about its source the first time.
     *
     * @param string $what what was refused, e.g. "a task on bobbin.jobs.run"
     * @param string $source who sent it, as far as this side can tell (a reply subject's inbox, a job worker's pid)
     */
    public function record(JobAuthenticationException $refusal, string $what, string $source): void
    {
        $reason = $refusal->reason->value;
        $this->counts[$reason] = ($this->counts[$reason] ?? 0) + 1;
        if (isset($this->sources[$source])) {
            return;
        }
        if (\count($this->sources) >= self::MAX_SOURCES) {
            if (!$this->sourcesFull) {
                $this->sourcesFull = true;
                $this->warn('More than {n} sources sent job messages that were refused; further new sources are only counted (bobbin_jobs_refused_messages_total)', ['n' => self::MAX_SOURCES]);
            }

            return;
        }
        $this->sources[$source] = true;
        $this->warn('Refused {what} from {source}: {reason}; nothing in it was decoded (further refusals from this source are only counted)', [
            'what' => $what,
            'source' => $source,
            'reason' => $refusal->getMessage(),
        ]);
    }

    /** @return array<string, int> refused messages since the start, by reason (every reason present) */
    public function counts(): array
    {
        $counts = [];
        foreach (RefusalReason::cases() as $reason) {
            $counts[$reason->value] = $this->counts[$reason->value] ?? 0;
        }

        return $counts;
    }

    public function total(): int
    {
        return \array_sum($this->counts);
    }

    /** @param array<string, mixed> $context */
    private function warn(string $message, array $context): void
    {
        if ($this->logger !== null) {
            $this->logger->warning($message, $context);

            return;
        }
        \error_log('bobbin: ' . \strtr($message, \array_combine(
            \array_map(static fn (string $name): string => '{' . $name . '}', \array_keys($context)),
            \array_map(static fn (mixed $value): string => \is_scalar($value) ? (string) $value : \get_debug_type($value), $context),
        )));
    }
}
