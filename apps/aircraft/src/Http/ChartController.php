<?php

declare(strict_types=1);

namespace Bobbin\Apps\Aircraft\Http;

use Bobbin\Apps\Aircraft\Chart\FleetByYearChart;
use Bobbin\Apps\Aircraft\Chart\FleetChartTask;
use Bobbin\Apps\Aircraft\Domain\AircraftRepository;
use Bobbin\Apps\Aircraft\Domain\ValidationException;
use Bobbin\Http\RequestCancellation;
use Bobbin\Jobs\Jobs;
use Psr\Http\Message\ResponseFactoryInterface;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Message\StreamFactoryInterface;

/**
 * GET /charts/fleet-by-year.png: the counts come from the database (a wait, not work), the
 * drawing goes to Jobs — a job worker on Bobbin, so this worker's other requests go on while it
 * draws; in-process under PHP-FPM.
 */
final class ChartController
{
    private const DEFAULT_WIDTH = 1200;
    private const DEFAULT_HEIGHT = 675;

    public function __construct(
        private readonly AircraftRepository $aircraft,
        private readonly Jobs $jobs,
        private readonly ResponseFactoryInterface $responses,
        private readonly StreamFactoryInterface $streams,
    ) {
    }

    public function fleetByYear(ServerRequestInterface $request): ResponseInterface
    {
        $query = $request->getQueryParams();
        $errors = [];
        $width = QueryParameters::integer($query, 'width', self::DEFAULT_WIDTH, FleetByYearChart::MIN_WIDTH, FleetByYearChart::MAX_WIDTH, $errors);
        $height = QueryParameters::integer($query, 'height', self::DEFAULT_HEIGHT, FleetByYearChart::MIN_HEIGHT, FleetByYearChart::MAX_HEIGHT, $errors);
        if ($errors !== []) {
            throw new ValidationException($errors, 'Invalid query parameters');
        }
        $cancellation = RequestCancellation::of($request);
        $counts = $this->aircraft->countByAssemblyYear($cancellation);
        $png = $this->jobs->submit(new FleetChartTask($counts, $width, $height), $cancellation)->await();
        \assert(\is_string($png));

        return $this->responses->createResponse(200)
            ->withHeader('Content-Type', 'image/png')
            ->withHeader('Cache-Control', 'no-cache')
            ->withBody($this->streams->createStream($png));
    }
}
