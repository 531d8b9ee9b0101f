<?php

declare(strict_types=1);

namespace Bobbin\Apps\Aircraft\Http;

use FastRoute\Dispatcher;
use FastRoute\RouteCollector;

/** The route table; built once per process. */
final class Routes
{
    /** FastRoute comes from Debian's php-nikic-fast-route: the Composer registry here lacks it. */
    private const FAST_ROUTE_AUTOLOAD = '/usr/share/php/FastRoute/autoload.php';

    public static function dispatcher(AircraftController $aircraft, ProbeController $probes, ChartController $charts): Dispatcher
    {
        if (!\function_exists('FastRoute\simpleDispatcher')) {
            if (!\is_file(self::FAST_ROUTE_AUTOLOAD)) {
                throw new \RuntimeException('FastRoute is missing: install the php-nikic-fast-route package (scripts/install-deps)');
            }
            require_once self::FAST_ROUTE_AUTOLOAD;
        }

        return \FastRoute\simpleDispatcher(static function (RouteCollector $routes) use ($aircraft, $probes, $charts): void {
            $routes->addRoute('GET', '/aircraft', $aircraft->list(...));
            $routes->addRoute('POST', '/aircraft', $aircraft->create(...));
            $routes->addRoute('GET', '/aircraft/{id}', $aircraft->show(...));
            $routes->addRoute('PUT', '/aircraft/{id}', $aircraft->replace(...));
            $routes->addRoute('DELETE', '/aircraft/{id}', $aircraft->delete(...));
            $routes->addRoute('GET', '/sleep', $probes->sleep(...));
            $routes->addRoute('GET', '/health', $probes->health(...));
            $routes->addRoute('GET', '/charts/fleet-by-year.png', $charts->fleetByYear(...));
        });
    }
}
