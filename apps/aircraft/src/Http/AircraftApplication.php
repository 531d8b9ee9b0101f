<?php

declare(strict_types=1);

namespace Bobbin\Apps\Aircraft\Http;

use Bobbin\Apps\Aircraft\Domain\DuplicateNumberException;
use Bobbin\Apps\Aircraft\Domain\ValidationException;
use Bobbin\Async\CancelledException;
use Bobbin\Async\OutcomeUnknown;
use Bobbin\Mysql\Exception\MysqlException;
use Bobbin\Postgres\Exception\PostgresException;
use FastRoute\Dispatcher;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\RequestHandlerInterface;
use Psr\Log\LoggerInterface;

/**
 * The PSR-15 entry of the application, the same object under both servers: routes the request,
 * and turns every failure into the contract's JSON error (never a stack trace).
 */
final class AircraftApplication implements RequestHandlerInterface
{
    public function __construct(
        private readonly Dispatcher $router,
        private readonly JsonResponses $responses,
        private readonly LoggerInterface $logger,
    ) {
    }

    public function handle(ServerRequestInterface $request): ResponseInterface
    {
        $path = $request->getUri()->getPath();
        if (\str_contains($path, '//')) {
            // nginx merges repeated slashes before PHP-FPM sees the path (merge_slashes, on by
            // default); merging them here gives the same answer under both servers.
            $path = (string) \preg_replace('~/{2,}~', '/', $path);
        }
        $route = $this->router->dispatch($request->getMethod(), $path);
        switch ($route[0]) {
            case Dispatcher::NOT_FOUND:
                return $this->responses->error(404, 'Not found');
            case Dispatcher::METHOD_NOT_ALLOWED:
                /** @var list<string> $allowed */
                $allowed = $route[1];

                return $this->responses->error(405, 'Method not allowed', [], ['Allow' => \implode(', ', $allowed)]);
        }
        /** @var callable(ServerRequestInterface, string...): ResponseInterface $action */
        $action = $route[1];
        /** @var array<string, string> $arguments */
        $arguments = $route[2];

        try {
            return $action($request, ...\array_values($arguments));
        } catch (BadRequestException $e) {
            return $this->responses->error(400, $e->getMessage());
        } catch (ValidationException $e) {
            return $this->responses->error(422, $e->getMessage(), $e->fields);
        } catch (DuplicateNumberException $e) {
            return $this->responses->error(409, $e->getMessage());
        } catch (OutcomeUnknown $e) {
            $this->logger->warning('Outcome unknown: {message}', ['message' => $e->getMessage(), 'exception' => $e]);
            if ($request->getMethod() === 'GET') {
                // A read changed nothing, whatever became of it: trying again is safe.
                return $this->responses->error(503, 'The database is unavailable, try again later');
            }

            // A write was sent and no answer came: "try again" could write twice. Say what is known.
            return $this->responses->json(504, ['error' => 'The database did not answer in time: the change may or may not have been made. Check before you retry.', 'outcome' => 'unknown']);
        } catch (CancelledException $e) {
            // The request's deadline passed or its client left: the server has answered (or
            // there is nobody to answer) and the statement was cancelled on the database.
            return $this->responses->error(503, 'The request was cancelled: ' . $e->getMessage());
        } catch (PostgresException|MysqlException $e) {
            $this->logger->error('Database failure: {message}', ['message' => $e->getMessage(), 'exception' => $e]);

            return $this->responses->error(503, 'The database is unavailable, try again later');
        } catch (\Throwable $e) {
            $this->logger->error('Unexpected error: {message}', ['message' => $e->getMessage(), 'exception' => $e]);

            return $this->responses->error(500, 'Internal server error');
        }
    }
}
