<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Aircraft;

use Bobbin\Tests\Support\Mysql\EmbeddedMysql;

/** The aircraft table on the embedded MariaDB, for the conformance tests that run on it. */
final class MariadbSchema
{
    public static function apply(): void
    {
        EmbeddedMysql::client((string) \file_get_contents(\dirname(__DIR__, 3) . '/apps/aircraft/schema-mysql.sql'));
    }
}
