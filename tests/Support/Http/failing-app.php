<?php

declare(strict_types=1);

throw new \RuntimeException('cannot reach the database');
