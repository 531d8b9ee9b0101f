<?php

declare(strict_types=1);

namespace Bobbin\Apps\Aircraft;

use Bobbin\Apps\Aircraft\Domain\AircraftRepository;
use Bobbin\Apps\Aircraft\Http\AircraftApplication;
use Bobbin\Apps\Aircraft\Http\AircraftController;
use Bobbin\Apps\Aircraft\Http\ChartController;
use Bobbin\Apps\Aircraft\Http\JsonResponses;
use Bobbin\Apps\Aircraft\Http\ProbeController;
use Bobbin\Apps\Aircraft\Http\Routes;
use Bobbin\Http\Message\MessageFactory;
use Bobbin\Apps\Aircraft\Storage\CachedAircraftRepository;
use Bobbin\Apps\Aircraft\Storage\MysqlAircraftRepository;
use Bobbin\Apps\Aircraft\Storage\PostgresAircraftRepository;
use Bobbin\Jobs\Jobs;
use Bobbin\Mysql\Executor as MysqlExecutor;
use Bobbin\Postgres\Executor as PostgresExecutor;
use Bobbin\Redis\Executor as RedisExecutor;
use Closure;
use Psr\Http\Message\ResponseFactoryInterface;
use Psr\Http\Message\StreamFactoryInterface;
use Psr\Log\LoggerInterface;

/**
 * The wiring shared by both entry points. Only the database differs: a pool for the long-running
 * server, one connection (fresh or persistent) per request under PHP-FPM; PostgreSQL or
 * MySQL/MariaDB, whose executor picks the repository.
 */
final class AircraftServices
{
    /**
     * @param Closure(): (PostgresExecutor|MysqlExecutor) $database
     * @param (Closure(): RedisExecutor)|null $cache Redis for GET /aircraft/{id} (REDIS_URL), or none
     */
    public static function container(Closure $database, LoggerInterface $logger, ?Closure $cache = null): Container
    {
        return new Container([
            LoggerInterface::class => static fn (): LoggerInterface => $logger,
            // PSR-17: Bobbin's message classes, the cheapest for Bobbin to write, and just as
            // good under PHP-FPM, where SapiRunner emits any PSR-7 response. One line to swap.
            MessageFactory::class => static fn (): MessageFactory => new MessageFactory(),
            ResponseFactoryInterface::class => static fn (Container $c): mixed => $c->get(MessageFactory::class),
            StreamFactoryInterface::class => static fn (Container $c): mixed => $c->get(MessageFactory::class),
            JsonResponses::class => static fn (Container $c): JsonResponses => new JsonResponses(
                $c->get(ResponseFactoryInterface::class),
                $c->get(StreamFactoryInterface::class),
            ),
            AircraftRepository::class => static function () use ($database, $cache, $logger): AircraftRepository {
                $executor = $database();
                $repository = $executor instanceof MysqlExecutor
                    ? new MysqlAircraftRepository($executor)
                    : new PostgresAircraftRepository($executor);

                return $cache === null ? $repository : new CachedAircraftRepository($repository, $cache(), $logger);
            },
            AircraftController::class => static fn (Container $c): AircraftController => new AircraftController(
                $c->get(AircraftRepository::class),
                $c->get(JsonResponses::class),
            ),
            ProbeController::class => static fn (Container $c): ProbeController => new ProbeController(
                $c->get(AircraftRepository::class),
                $c->get(JsonResponses::class),
            ),
            // On Bobbin the job workers the server set up; under PHP-FPM tasks run in-process.
            Jobs::class => static fn (): Jobs => Jobs::shared(),
            ChartController::class => static fn (Container $c): ChartController => new ChartController(
                $c->get(AircraftRepository::class),
                $c->get(Jobs::class),
                $c->get(ResponseFactoryInterface::class),
                $c->get(StreamFactoryInterface::class),
            ),
            AircraftApplication::class => static fn (Container $c): AircraftApplication => new AircraftApplication(
                Routes::dispatcher($c->get(AircraftController::class), $c->get(ProbeController::class), $c->get(ChartController::class)),
                $c->get(JsonResponses::class),
                $c->get(LoggerInterface::class),
            ),
        ]);
    }
}
