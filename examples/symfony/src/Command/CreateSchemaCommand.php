<?php

declare(strict_types=1);

namespace App\Command;

use Doctrine\DBAL\Connection;
use Symfony\Component\Console\Attribute\AsCommand;
use Symfony\Component\Console\Command\Command;
use Symfony\Component\Console\Input\InputInterface;
use Symfony\Component\Console\Output\OutputInterface;

/**
 * Creates the tables the example uses (fw_items for /items), once before serving it:
 *   DATABASE_URL=… php bin/console app:create-schema
 * Running it again changes nothing.
 */
#[AsCommand(name: 'app:create-schema', description: 'Creates the tables the example uses (idempotent)')]
final class CreateSchemaCommand extends Command
{
    public function __construct(private readonly Connection $database)
    {
        parent::__construct();
    }

    protected function execute(InputInterface $input, OutputInterface $output): int
    {
        $this->database->executeStatement('CREATE TABLE IF NOT EXISTS fw_items (id SERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE)');
        $output->writeln('fw_items is ready');

        return Command::SUCCESS;
    }
}
