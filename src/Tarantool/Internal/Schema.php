<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Internal;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\Future;
use Bobbin\Tarantool\Exception\ProtocolException;
use Bobbin\Tarantool\Exception\QueryException;

/**
 * Space and index names to ids, read from the server's _vspace and _vindex views, and the
 * schema version they were read under. Loaded on the first name, again after the server said
 * the schema changed (ER_WRONG_SCHEMA_VERSION) or a name is not known; one load at a time,
 * the fibers that need it meanwhile wait for that one.
 *
 * @internal
 */
final class Schema
{
    private const NO_SUCH_INDEX = 35;
    private const NO_SUCH_SPACE = 36;
    private const ALL = 2;
    private const NO_LIMIT = 0xFFFFFFFF;

    /** @var array<string, int>|null */
    private ?array $spaces = null;
    /** @var array<int, array<string, int>> */
    private array $indexes = [];
    /** The server's schema version these names were read under (0: not loaded). */
    public int $version = 0;
    /** @var Future<mixed>|null */
    private ?Future $loading = null;

    public function invalidate(): void
    {
        $this->spaces = null;
        $this->indexes = [];
        $this->version = 0;
    }

    /**
     * The id of a space by name as the cache has it now: null when the names are not loaded or
     * not known (no load, no round trip: the caller then takes the path that loads them).
     */
    public function cachedSpaceId(string $name): ?int
    {
        return $this->spaces[$name] ?? null;
    }

    /** The id of a space's index by name as the cache has it now; null when not loaded or not known. */
    public function cachedIndexId(int $spaceId, string $name): ?int
    {
        return $this->indexes[$spaceId][$name] ?? null;
    }

    /** @throws QueryException when no space has that name, even after a reload */
    public function spaceId(string $name, Session $session, ?Cancellation $cancellation): int
    {
        if ($this->spaces === null) {
            $this->load($session, $cancellation);
        }
        if (!isset($this->spaces[$name])) {
            // Created since we looked?
            $this->invalidate();
            $this->load($session, $cancellation);
        }

        return $this->spaces[$name] ?? throw new QueryException(\sprintf("Space '%s' does not exist", $name), self::NO_SUCH_SPACE);
    }

    /** @throws QueryException when the space has no index of that name, even after a reload */
    public function indexId(int $spaceId, string $name, Session $session, ?Cancellation $cancellation): int
    {
        if ($this->spaces === null) {
            $this->load($session, $cancellation);
        }
        if (!isset($this->indexes[$spaceId][$name])) {
            $this->invalidate();
            $this->load($session, $cancellation);
        }

        return $this->indexes[$spaceId][$name] ?? throw new QueryException(\sprintf("No index '%s' in space %d", $name, $spaceId), self::NO_SUCH_INDEX);
    }

    private function load(Session $session, ?Cancellation $cancellation): void
    {
        $this->loading ??= Async::run(function () use ($session): void {
            try {
                $this->read($session);
            } finally {
                $this->loading = null;
            }
        })->ignore(); // its failure reaches whoever awaits it; nobody else need hear of it
        $this->loading->await($cancellation);
    }

    private function read(Session $session): void
    {
        for ($attempt = 0; $attempt < 3; $attempt++) {
            $spaces = $this->select($session, Iproto::VSPACE);
            $indexes = $this->select($session, Iproto::VINDEX);
            if ($spaces->schemaVersion !== $indexes->schemaVersion) {
                continue; // changed between the two reads
            }
            $names = [];
            foreach ($spaces->data() as $tuple) {
                if (\is_array($tuple) && \is_int($tuple[0] ?? null) && \is_string($tuple[2] ?? null)) {
                    $names[$tuple[2]] = $tuple[0];
                }
            }
            $byName = [];
            foreach ($indexes->data() as $tuple) {
                if (\is_array($tuple) && \is_int($tuple[0] ?? null) && \is_int($tuple[1] ?? null) && \is_string($tuple[2] ?? null)) {
                    $byName[$tuple[0]][$tuple[2]] = $tuple[1];
                }
            }
            $this->spaces = $names;
            $this->indexes = $byName;
            $this->version = $spaces->schemaVersion;

            return;
        }
        throw new ProtocolException('The schema kept changing while it was read');
    }

    private function select(Session $session, int $space): Response
    {
        $response = $session->request(Iproto::SELECT, $session->encoder->select($space, 0, [], self::NO_LIMIT, 0, self::ALL));
        if ($response->isError()) {
            throw ErrorFactory::fromResponse($response, 'reading the schema');
        }

        return $response;
    }
}
