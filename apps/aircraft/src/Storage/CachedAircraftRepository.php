<?php

declare(strict_types=1);

namespace Bobbin\Apps\Aircraft\Storage;

use Bobbin\Apps\Aircraft\Domain\Aircraft;
use Bobbin\Apps\Aircraft\Domain\AircraftInput;
use Bobbin\Apps\Aircraft\Domain\AircraftPage;
use Bobbin\Apps\Aircraft\Domain\AircraftRepository;
use Bobbin\Async\Cancellation;
use Bobbin\Redis\Exception\RedisException;
use Bobbin\Redis\Executor as RedisExecutor;
use Psr\Log\LoggerInterface;

/**
 * GET /aircraft/{id} from Redis when REDIS_URL is set: a found aircraft is kept as its JSON for
 * TTL seconds, and PUT and DELETE remove it once the database has the change, so the answers are
 * the contract's. The database stays the truth: a Redis that fails is logged and bypassed, never
 * a 503. What a cache cannot close: a GET that read the old row just before a PUT may store it
 * after the PUT's removal; the TTL bounds how long that copy lives.
 */
final class CachedAircraftRepository implements AircraftRepository
{
    public const TTL = 60.0;
    private const PREFIX = 'aircraft:v1:';

    public function __construct(
        private readonly AircraftRepository $database,
        private readonly RedisExecutor $redis,
        private readonly LoggerInterface $logger,
    ) {
    }

    public function find(int $id, ?Cancellation $cancellation = null): ?Aircraft
    {
        try {
            $cached = $this->redis->get(self::PREFIX . $id, $cancellation);
            if ($cached !== null) {
                $fields = \json_decode($cached, true);
                if (\is_array($fields)) {
                    return Aircraft::fromRow($fields);
                }
            }
        } catch (RedisException $e) {
            $this->bypassed($e);
        }
        $found = $this->database->find($id, $cancellation);
        if ($found !== null) {
            try {
                $this->redis->set(self::PREFIX . $id, \json_encode($found->toArray(), \JSON_THROW_ON_ERROR), self::TTL, cancellation: $cancellation);
            } catch (RedisException $e) {
                $this->bypassed($e);
            }
        }

        return $found;
    }

    /** Not cached: it answers what the database holds now (a write whose outcome is unknown). */
    public function findByNumber(string $number, ?Cancellation $cancellation = null): ?Aircraft
    {
        return $this->database->findByNumber($number, $cancellation);
    }

    public function replace(int $id, AircraftInput $input, ?Cancellation $cancellation = null): ?Aircraft
    {
        try {
            return $this->database->replace($id, $input, $cancellation);
        } finally {
            $this->forget($id); // also when the write failed: it may have happened
        }
    }

    public function delete(int $id, ?Cancellation $cancellation = null): bool
    {
        try {
            return $this->database->delete($id, $cancellation);
        } finally {
            $this->forget($id);
        }
    }

    public function create(AircraftInput $input, ?Cancellation $cancellation = null): Aircraft
    {
        return $this->database->create($input, $cancellation);
    }

    public function page(int $afterId, int $limit, ?Cancellation $cancellation = null): AircraftPage
    {
        return $this->database->page($afterId, $limit, $cancellation);
    }

    public function countByAssemblyYear(?Cancellation $cancellation = null): array
    {
        return $this->database->countByAssemblyYear($cancellation);
    }

    public function sleepThenGenerateUuid(?Cancellation $cancellation = null): array
    {
        return $this->database->sleepThenGenerateUuid($cancellation);
    }

    /** Not cancelled with the request: a removal abandoned halfway would leave the old copy. */
    private function forget(int $id): void
    {
        try {
            $this->redis->del(self::PREFIX . $id);
        } catch (RedisException $e) {
            $this->bypassed($e);
        }
    }

    private function bypassed(RedisException $e): void
    {
        $this->logger->warning('Redis cache bypassed: {message}', ['message' => $e->getMessage()]);
    }
}
