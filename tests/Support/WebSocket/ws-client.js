// WebSocketTest's independent client: Node's `ws` (Debian's node-ws). Connects to argv[2],
// sends a text, a binary and a 60 KB text message, a ping, then closes with 1000, and prints
// one JSON line of what came back. `ws` offers permessage-deflate and compresses what it sends
// above 1 KiB; with argv[3] = 'plain' it offers no extension.
const WebSocket = require('ws');
const socket = new WebSocket(process.argv[2], { perMessageDeflate: process.argv[3] !== 'plain' });
const seen = { messages: [], pong: false, close: null, extensions: null };
socket.on('upgrade', (response) => { seen.extensions = response.headers['sec-websocket-extensions'] || ''; });
socket.on('open', () => {
    socket.send('hello from ws');
    socket.send(Buffer.from([0, 1, 2, 255]));
    socket.send('x'.repeat(60000));
    socket.ping('are you there');
});
socket.on('pong', (data) => { seen.pong = data.toString() === 'are you there'; });
socket.on('message', (data, isBinary) => {
    seen.messages.push(isBinary ? 'binary:' + Buffer.from(data).toString('hex') : 'text:' + (data.length > 50 ? data.length + ' chars' + (data.toString() === 'x'.repeat(data.length) ? '' : ' garbled') : data.toString()));
    if (seen.messages.length === 3) {
        socket.close(1000, 'done');
    }
});
socket.on('close', (code, reason) => {
    seen.close = [code, reason.toString()];
    console.log(JSON.stringify(seen));
    process.exit(0);
});
socket.on('error', (error) => { console.log(JSON.stringify({ error: String(error) })); process.exit(1); });
setTimeout(() => { console.log(JSON.stringify({ timeout: seen })); process.exit(1); }, 10000);
