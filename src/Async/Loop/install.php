<?php

declare(strict_types=1);

/*
 * Loaded by Composer's autoloader (composer.json "autoload.files"): sets the loop driver of every
 * program that uses Bobbin before anything touches the loop. See DriverChoice for the choice.
 */

\Revolt\EventLoop::setDriver(\Bobbin\Async\Loop\DriverChoice::create());
