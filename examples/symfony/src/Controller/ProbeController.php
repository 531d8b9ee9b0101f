<?php

declare(strict_types=1);

namespace App\Controller;

use App\Notes;
use App\Probe;
use Bobbin\Async\Async;
use Doctrine\DBAL\Connection;
use Symfony\Component\HttpFoundation\JsonResponse;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\HttpFoundation\RequestStack;
use Symfony\Component\HttpFoundation\Response;
use Symfony\Component\Routing\Attribute\Route;
use Symfony\Component\Security\Core\Authentication\Token\Storage\TokenStorageInterface;
use Symfony\Component\Security\Core\Authentication\Token\UsernamePasswordToken;
use Symfony\Component\Security\Core\User\InMemoryUser;

/**
 * The leak suite's routes (tests/Integration/Frameworks): what a request sees through Symfony's
 * long-lived services — the request stack, the token storage, the session — after it waited.
 */
final class ProbeController
{
    public function __construct(
        private readonly RequestStack $requests,
        private readonly TokenStorageInterface $tokens,
        private readonly Notes $notes,
        private readonly Connection $database,
    ) {
    }

    #[Route('/health')]
    public function health(): Response
    {
        return new Response('ok', 200, ['Content-Type' => 'text/plain']);
    }

    #[Route('/probe/{id}', methods: ['GET'])]
    public function probe(string $id, Request $request): JsonResponse
    {
        $this->logIn($request);
        $request->getSession()->set('probe', $id);
        $seconds = $request->query->getInt('ms', 100) / 1000;
        // Bobbin's cancellation of this request (null under PHP-FPM).
        $cancellation = $request->attributes->get('bobbin.cancellation');
        if ($request->query->get('wait', 'timer') === 'db') {
            $this->database->fetchOne('SELECT pg_sleep(?)', [$seconds]); // DBAL on Bobbin's pool
        } else {
            Async::delay($seconds, $cancellation);
        }
        $current = $this->requests->getCurrentRequest();

        return new JsonResponse([
            'id' => $id,
            'request' => $current?->query->get('q'),
            'route' => $current?->attributes->get('_route_params')['id'] ?? null,
            'user' => $this->tokens->getToken()?->getUserIdentifier(),
            'session' => $current?->getSession()->get('probe'),
        ]);
    }

    #[Route('/pollute', methods: ['POST'])]
    public function pollute(Request $request): JsonResponse
    {
        $this->tokens->setToken(new UsernamePasswordToken(new InMemoryUser('intruder', null), 'main'));
        $request->getSession()->set('mark', 'polluted');
        $this->notes->write('polluted');
        Probe::$value = 'polluted';
        \setcookie('leak', 'polluted');

        return new JsonResponse(['polluted' => true]);
    }

    #[Route('/state', methods: ['GET'])]
    public function state(Request $request): JsonResponse
    {
        return new JsonResponse([
            'user' => $this->tokens->getToken()?->getUserIdentifier(),
            'config' => null,
            'static' => Probe::$value,
            'session' => $request->getSession()->get('mark'),
            'service' => $this->notes->read(),
        ]);
    }

    #[Route('/fail')]
    public function fail(): Response
    {
        throw new \RuntimeException('secret detail: /etc/passwd');
    }

    private function logIn(Request $request): void
    {
        $user = $request->headers->get('X-User', '');
        if ($user !== '') {
            $this->tokens->setToken(new UsernamePasswordToken(new InMemoryUser($user, null), 'main'));
        }
    }
}
