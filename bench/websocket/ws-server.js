// bench/websocket/run.php's reference server: Node's `ws` (Debian node-ws), one process.
// ws://HOST:PORT/ echoes; ws://HOST:PORT/chat broadcasts each message to every member (as
// examples/websocket/chat.php does); GET /stats answers {"connected", "heap", "rss"} in bytes.
//   NODE_PATH=/usr/share/nodejs node ws-server.js PORT
'use strict';
const http = require('http');
const { WebSocketServer } = require('ws');

const members = new Set();
const server = http.createServer((request, response) => {
    global.gc?.(); // run with --expose-gc: the live heap, not what the last collection left
    const memory = process.memoryUsage();
    response.end(JSON.stringify({ connected: members.size, heap: memory.heapUsed, rss: memory.rss }));
});
const sockets = new WebSocketServer({ server, perMessageDeflate: false });
sockets.on('connection', (socket, request) => {
    if (request.url === '/chat') {
        members.add(socket);
        socket.on('message', (data, isBinary) => {
            for (const member of members) {
                member.send(data, { binary: isBinary });
            }
        });
        socket.on('close', () => members.delete(socket));
    } else {
        socket.on('message', (data, isBinary) => socket.send(data, { binary: isBinary }));
    }
});
server.listen(Number(process.argv[2]), '127.0.0.1');
