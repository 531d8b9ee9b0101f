<?php

/*
 * The leak suite's routes (tests/Integration/Frameworks): what a request sees through Laravel's
 * globals — request(), Route::current(), Auth, the session, config(), cookies — after it waited.
 */

use App\Probe;
use Bobbin\Async\Async;
use Bobbin\Async\CancelledException;
use Illuminate\Auth\GenericUser;
use Illuminate\Database\UniqueConstraintViolationException;
use Illuminate\Http\Request;
use Illuminate\Support\Facades\Auth;
use Illuminate\Support\Facades\Cookie;
use Illuminate\Support\Facades\DB;
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
        DB::select('SELECT pg_sleep(?)', [$seconds]); // Laravel's connection on Bobbin's pool
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

// The features the example's own tests exercise (tests/Integration/Frameworks/ExampleAppFeaturesTestCase).
Route::get('/items/{id}', static function (string $id) {
    $item = DB::table('fw_items')->where('id', (int) $id)->first();

    return $item === null ? response()->json(['error' => 'not found'], 404) : response()->json($item);
});

Route::post('/items', static function (Request $request) {
    $data = $request->validate(['name' => 'required|string|max:40']);
    try {
        $id = DB::transaction(static fn () => DB::table('fw_items')->insertGetId(['name' => $data['name']]));
    } catch (UniqueConstraintViolationException) {
        return response()->json(['error' => 'name taken'], 409);
    }

    return response()->json(['id' => $id, 'name' => $data['name']], 201);
});

Route::post('/upload', static function (Request $request) {
    $file = $request->file('document');

    return response()->json([
        'field' => $request->input('field'),
        'name' => $file?->getClientOriginalName(),
        'size' => $file?->getSize(),
        'sha1' => $file === null ? null : sha1_file($file->getRealPath()),
    ]);
});

Route::get('/visits', static function () {
    session()->put('visits', session('visits', 0) + 1);

    return response()->json(['visits' => session('visits')]);
});

// Streamed responses: each event flushed, then a wait of ?ms= before the next; with ?token= the
// way the stream ended (completed, cancelled) is written to a file the test reads.
$streamParameters = static fn (Request $request): array => [
    (int) $request->query('count', '3'),
    (int) $request->query('ms', '300') / 1000,
    (string) preg_replace('/\\W/', '', (string) $request->query('token', '')),
    $request->attributes->get('bobbin.cancellation'),
];
$recordOutcome = static function (string $token, string $outcome): void {
    if ($token !== '') {
        file_put_contents(sys_get_temp_dir().'/bobbin-stream-'.$token, $outcome);
    }
};

Route::get('/stream/events', static function (Request $request) use ($streamParameters, $recordOutcome) {
    [$count, $seconds, $token, $cancellation] = $streamParameters($request);

    return response()->eventStream(static function () use ($count, $seconds, $token, $cancellation, $recordOutcome) {
        $outcome = 'interrupted';
        try {
            for ($i = 1; $i <= $count; $i++) {
                if ($i > 1) {
                    Async::delay($seconds, $cancellation);
                }
                yield "event $i";
            }
            $outcome = 'completed';
        } catch (CancelledException) {
            $outcome = 'cancelled';
        } finally {
            $recordOutcome($token, $outcome);
        }
    });
});

Route::get('/stream/chunks', static function (Request $request) use ($streamParameters, $recordOutcome) {
    [$count, $seconds, $token, $cancellation] = $streamParameters($request);

    return response()->stream(static function () use ($count, $seconds, $token, $cancellation, $recordOutcome) {
        $outcome = 'interrupted';
        try {
            for ($i = 1; $i <= $count; $i++) {
                if ($i > 1) {
                    Async::delay($seconds, $cancellation);
                }
                // request(): the application's current request, this one's in every mode.
                echo "data: event $i of ".request()->query('tag', '-')."\n\n";
                ob_flush();
                flush();
            }
            $outcome = 'completed';
        } catch (CancelledException) {
            $outcome = 'cancelled';
        } finally {
            $recordOutcome($token, $outcome);
        }
    }, 200, ['Content-Type' => 'text/event-stream', 'X-Accel-Buffering' => 'no']);
});

// The classic PHP server-sent-events loop: echo, flush, a blocking sleep (no wait on Bobbin's
// loop): each event goes out at its flush() all the same.
Route::get('/stream/blocking', static function (Request $request) use ($streamParameters) {
    [$count, $seconds] = $streamParameters($request);

    return response()->stream(static function () use ($count, $seconds) {
        for ($i = 1; $i <= $count; $i++) {
            echo "data: event $i\n\n";
            ob_flush();
            flush();
            usleep((int) ($seconds * 1_000_000));
        }
    }, 200, ['Content-Type' => 'text/event-stream', 'X-Accel-Buffering' => 'no']);
});

Route::post('/upload/store', static function (Request $request) {
    $request->validate(['document' => 'required|file']);
    $file = $request->file('document');
    $valid = $file->isValid();
    $path = $file->storeAs('uploads', bin2hex(random_bytes(8)).'.bin', 'local');
    $moved = $file->move(storage_path('app/moved'), bin2hex(random_bytes(8)).'.bin');
    $movedSha1 = sha1_file($moved->getPathname());
    unlink($moved->getPathname());

    $storedSha1 = sha1((string) Illuminate\Support\Facades\Storage::disk('local')->get($path));
    Illuminate\Support\Facades\Storage::disk('local')->delete($path);

    return response()->json([
        'valid' => $valid,
        'stored' => $path,
        'sha1' => $storedSha1,
        'moved_sha1' => $movedSha1,
    ]);
});

Route::post('/upload/optional', static function (Request $request) {
    $request->validate(['document' => 'nullable|file']);

    return response()->json([
        'file' => $request->file('document') === null ? null : 'present',
        'has' => $request->hasFile('document'),
    ]);
});

// A WebSocket from a route (bin/bobbin serve only): greets with the route's name and the ?name=
// it was opened with, then echoes each message (tests/Integration/Frameworks).
Route::get('/ws', static function (Request $request) {
    if (!Bobbin\Frameworks\Symfony\WebSocketRoute::isRequested($request)) {
        return response("a WebSocket echo: connect with Upgrade: websocket\n", 426, ['Content-Type' => 'text/plain']);
    }
    $greeting = sprintf('hello %s from %s', $request->query('name', 'stranger'), $request->route()?->getName());

    return Bobbin\Frameworks\Symfony\WebSocketRoute::accept($request, static function (Bobbin\Http\WebSocket\WebSocket $socket) use ($greeting): void {
        $socket->send($greeting.' ('.($socket->protocol() ?? 'no subprotocol').')');
        while (($message = $socket->receive()) !== null) {
            $socket->send('echo: '.$message->data);
        }
    }, protocols: ['echo.v1']);
})->name('websocket');
