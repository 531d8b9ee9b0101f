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
use Bobbin\Jobs\Jobs;
use Bobbin\Postgres\Executor;
use Closure;
use Psr\Http\Message\ResponseFactoryInterface;
use Psr\Http\Message\StreamFactoryInterface;
use Psr\Log\LoggerInterface;

/**
 * The wiring shared by both entry points. Only the database differs: a pool for the long-running
 * server, one connection (fresh or persistent) per request under PHP-FPM.
 */
final class AircraftServices
{
    /** @param Closure(): Executor $database */
    public static function container(Closure $database, LoggerInterface $logger): Container
    {
        return new Container([
            Executor::class => static fn (): Executor => $database(),
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
            AircraftRepository::class => static fn (Container $c): AircraftRepository => new AircraftRepository(
                $c->get(Executor::class),
            ),
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
