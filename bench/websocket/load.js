// bench/websocket/run.php's load generator (Node with Debian's node-ws: NODE_PATH=/usr/share/nodejs).
// The same client drives every server, so the ratios compare servers, not clients.
//
//   node load.js echo URL CLIENTS SECONDS BYTES    each client sends a text message and waits for its
//                                                  echo before the next; prints {"messages": n}
//   node load.js fanout URL MEMBERS ROUNDS BYTES   MEMBERS join a chat; member 0 sends, and the next
//                                                  round starts when every member has the message;
//                                                  prints {"rounds": n, "ms": [per round]}
//   node load.js hold URL MEMBERS                  MEMBERS join a chat and stay; one broadcast; prints
//                                                  {"received": n, "ms": t, "closed": members the
//                                                  server closed meanwhile}
//
// fanout and hold print {"ready": MEMBERS} once every member is open and wait for a line on
// stdin before they start, so run.php reads the server's CPU time (and memory) around the part it
// measures; hold then waits for a second line before it closes everything.
'use strict';
const WebSocket = require('ws');

const [mode, url, countArg, arg4, arg5] = process.argv.slice(2);
const count = Number(countArg);

function fail(what) {
    console.log(JSON.stringify({ error: String(what) }));
    process.exit(1);
}

// Opens `n` connections, at most 200 handshakes in flight (a burst of thousands overflows the
// listen backlog and measures SYN retries, not the server).
let closed = 0;

function openMany(n, onMessage) {
    return new Promise((resolve) => {
        const sockets = [];
        let started = 0;
        let opened = 0;
        const startOne = () => {
            const index = started++;
            const socket = new WebSocket(url, { perMessageDeflate: false });
            sockets[index] = socket;
            socket.on('error', fail);
            socket.on('message', (data) => onMessage(index, data));
            socket.on('close', () => closed++);
            socket.on('open', () => {
                opened++;
                if (started < n) {
                    startOne();
                } else if (opened === n) {
                    resolve(sockets);
                }
            });
        };
        for (let i = 0; i < Math.min(200, n); i++) {
            startOne();
        }
    });
}

function nextLine() {
    return new Promise((resolve) => {
        let buffered = '';
        const onData = (chunk) => {
            buffered += chunk;
            if (buffered.includes('\n')) {
                process.stdin.off('data', onData);
                process.stdin.pause();
                resolve();
            }
        };
        process.stdin.setEncoding('utf8');
        process.stdin.on('data', onData);
        process.stdin.resume();
    });
}

async function echo() {
    const payload = 'x'.repeat(Number(arg5));
    let messages = 0;
    let running = true;
    const sockets = await openMany(count, (index) => {
        messages++;
        if (running) {
            sockets[index].send(payload);
        }
    });
    for (const socket of sockets) {
        socket.send(payload);
    }
    setTimeout(() => {
        running = false;
        console.log(JSON.stringify({ messages }));
        process.exit(0);
    }, Number(arg4) * 1000);
}

async function fanout() {
    const rounds = Number(arg4);
    const payload = 'y'.repeat(Number(arg5));
    let pending = 0;
    let started = 0n;
    let finish = null;
    const sockets = await openMany(count, () => {
        if (--pending === 0) {
            finish();
        }
    });
    console.log(JSON.stringify({ ready: count }));
    await nextLine();
    const ms = [];
    for (let round = 0; round < rounds; round++) {
        await new Promise((resolve) => {
            finish = resolve;
            pending = count;
            started = process.hrtime.bigint();
            sockets[0].send(payload);
        });
        ms.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    console.log(JSON.stringify({ rounds, ms }));
    process.exit(0);
}

async function hold() {
    let received = 0;
    let started = 0n;
    let resolveAll = null;
    const sockets = await openMany(count, () => {
        if (++received === count) {
            resolveAll();
        }
    });
    console.log(JSON.stringify({ ready: count }));
    await nextLine();
    const all = new Promise((resolve) => { resolveAll = resolve; });
    started = process.hrtime.bigint();
    sockets[0].send('to all ten thousand');
    await Promise.race([all, new Promise((resolve) => setTimeout(resolve, 30000))]);
    console.log(JSON.stringify({ received, ms: Number(process.hrtime.bigint() - started) / 1e6, closed }));
    await nextLine();
    process.exit(0);
}

({ echo, fanout, hold }[mode] ?? (() => fail('mode: echo, fanout or hold')))().catch(fail);
