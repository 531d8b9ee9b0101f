<?php

declare(strict_types=1);

namespace App\Controller;

use Doctrine\DBAL\Connection;
use Doctrine\DBAL\Exception\UniqueConstraintViolationException;
use Symfony\Component\HttpFoundation\JsonResponse;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\Routing\Attribute\Route;

/** The features the example's own tests exercise (tests/Integration/Frameworks/ExampleAppFeaturesTestCase). */
final class ItemsController
{
    public function __construct(private readonly Connection $database)
    {
    }

    #[Route('/items/{id}', methods: ['GET'], requirements: ['id' => '\d+'])]
    public function show(int $id): JsonResponse
    {
        $item = $this->database->fetchAssociative('SELECT id, name FROM fw_items WHERE id = ?', [$id]);

        return $item === false ? new JsonResponse(['error' => 'not found'], 404) : new JsonResponse($item);
    }

    #[Route('/items', methods: ['POST'])]
    public function create(Request $request): JsonResponse
    {
        $name = \trim((string) $request->request->get('name', ''));
        if ($name === '' || \mb_strlen($name) > 40) {
            return new JsonResponse(['errors' => ['name' => 'required, at most 40 characters']], 422);
        }
        try {
            $id = $this->database->transactional(static function (Connection $c) use ($name): int {
                $c->insert('fw_items', ['name' => $name]);

                return (int) $c->lastInsertId();
            });
        } catch (UniqueConstraintViolationException) {
            return new JsonResponse(['error' => 'name taken'], 409);
        }

        return new JsonResponse(['id' => $id, 'name' => $name], 201);
    }

    #[Route('/upload', methods: ['POST'])]
    public function upload(Request $request): JsonResponse
    {
        $file = $request->files->get('document');

        return new JsonResponse([
            'field' => $request->request->get('field'),
            'name' => $file?->getClientOriginalName(),
            'size' => $file?->getSize(),
            'sha1' => $file === null ? null : \sha1_file($file->getPathname()),
        ]);
    }

    #[Route('/upload/optional', methods: ['POST'])]
    public function optionalUpload(Request $request): JsonResponse
    {
        return new JsonResponse([
            'file' => $request->files->get('document') === null ? null : 'present',
            'has' => $request->files->has('document') && $request->files->get('document') !== null,
        ]);
    }

    #[Route('/visits', methods: ['GET'])]
    public function visits(Request $request): JsonResponse
    {
        $session = $request->getSession();
        $session->set('visits', (int) $session->get('visits', 0) + 1);

        return new JsonResponse(['visits' => $session->get('visits')]);
    }
}
