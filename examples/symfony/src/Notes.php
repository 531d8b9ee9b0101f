<?php

declare(strict_types=1);

namespace App;

use Symfony\Contracts\Service\ResetInterface;

/**
 * A service that collects something during a request, as loggers and profilers do: Symfony
 * resets such services between requests of a long-lived kernel (ResetInterface, kernel.reset).
 */
final class Notes implements ResetInterface
{
    private ?string $note = null;

    public function write(string $note): void
    {
        $this->note = $note;
    }

    public function read(): ?string
    {
        return $this->note;
    }

    public function reset(): void
    {
        $this->note = null;
    }
}
