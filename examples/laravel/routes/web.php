<?php

/*
 * The leak suite's routes (tests/Integration/Frameworks): what a request sees through Laravel's
 * globals — request(), Route::current(), Auth, the session, config(), cookies — after it waited.
 */

use App\Database;
use App\Probe;
use Bobbin\Async\Async;
use Illuminate\Auth\GenericUser;
use Illuminate\Http\Request;
use Illuminate\Support\Facades\Auth;
use Illuminate\Support\Facades\Cookie;
use Illuminate\Support\Facades\Route;

$logIn = static function (Request $request): void {
    $user = (string) $request->header('X-User', '');
    if ($user !== '') {
        Auth::setUser(new GenericUser(['id' => $user, 'name' => $user]));
    }
};

Route::get('/health', static fn () => response('ok', 200, ['Content-Type' => 'text/plain']));

Route::get('/probe/{id}', static function (Request $request, string $id) use ($logIn) {
    $logIn($request);
    session()->put('probe', $id);
    $seconds = (int) $request->query('ms', '100') / 1000;
    // Bobbin's cancellation of this request (null under PHP-FPM).
    $cancellation = $request->attributes->get('bobbin.cancellation');
    if ($request->query('wait', 'timer') === 'db') {
        Database::pool()->query('SELECT pg_sleep($1)', [$seconds], $cancellation);
    } else {
        Async::delay($seconds, $cancellation);
    }

    return response()->json([
        'id' => $id,
        'request' => request()->query('q'),
        'route' => Route::current()?->parameter('id'),
        'user' => Auth::user()?->getAuthIdentifier(),
        'session' => session('probe'),
    ]);
});

Route::post('/pollute', static function () {
    Auth::setUser(new GenericUser(['id' => 'intruder', 'name' => 'intruder']));
    session()->put('mark', 'polluted');
    config(['app.probe' => 'polluted']);
    Cookie::queue('leak', 'polluted');
    Probe::$value = 'polluted';
    app()->setLocale('fr');

    return response()->json(['polluted' => true]);
});

Route::get('/state', static fn () => response()->json([
    'user' => Auth::user()?->getAuthIdentifier(),
    'config' => config('app.probe'),
    'static' => Probe::$value,
    'session' => session('mark'),
    'locale' => app()->getLocale(),
]));

Route::get('/fail', static function () {
    throw new RuntimeException('secret detail: /etc/passwd');
});
