<?php

declare(strict_types=1);

namespace Bobbin\Mysql;

/**
 * The convenience forms of Executor, built on query(): Bobbin\Sql\ExecutesQueries, under the
 * name applications written before the shared layer may use.
 */
trait ExecutesQueries
{
    use \Bobbin\Sql\ExecutesQueries;
}
