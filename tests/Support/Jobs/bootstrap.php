<?php

declare(strict_types=1);

/*
 * --job-bootstrap of the jobs tests: runs once per job worker, before its first task. It leaves
 * a mark for BootstrapProbeTask and, when BOBBIN_TEST_BOOTSTRAP_FAIL is set, fails instead.
 */

if (\getenv('BOBBIN_TEST_BOOTSTRAP_FAIL') !== false) {
    throw new \RuntimeException('the bootstrap was told to fail');
}

$GLOBALS['bobbin_test_bootstrapped'] = ['pid' => \getmypid(), 'at' => \microtime(true)];
