<?php

/*
 * The APP_FILE for Bobbin: `bin/bobbin serve examples/laravel/bobbin.php`. public/index.php
 * stays for PHP-FPM; this file boots the same application once per worker and hands it to
 * Bobbin's Laravel adapter, which resets what Octane's listeners reset after every request.
 */

require __DIR__.'/vendor/autoload.php';

return Bobbin\Frameworks\Laravel\LaravelHandler::boot(__DIR__.'/bootstrap/app.php', resetStatics: [App\Probe::class]);
