<?php

declare(strict_types=1);

namespace Bobbin\Bench\Report;

/** A performance target set by an issue, and how this run did against it. */
final class Target
{
    public function __construct(
        public readonly string $area,
        public readonly string $goal,
        public readonly ?float $measured,
        public readonly string $measuredText,
        public readonly ?bool $met,
        public readonly bool $noisy,
        public readonly string $caveat = '',
    ) {
    }

    public function verdict(): string
    {
        $verdict = match ($this->met) {
            true => '**met**',
            false => '**not met**',
            null => 'not measured in this run',
        };

        return $verdict . ($this->noisy ? ' (noisy)' : '') . ($this->caveat !== '' ? ' — ' . $this->caveat : '');
    }
}
