// qeval's Malloy bridge runs with no network: this module, imported before anything
// else, makes every way out of the process through Node's network modules fail. qeval
// also starts the bridge under Node's permission model (no file outside its own folder,
// no child process, no worker) and, where the system allows it, in a network namespace
// of its own; this is the layer that holds everywhere.
import net from 'node:net';
import dgram from 'node:dgram';
import dns from 'node:dns';

function refuse() {
  const e = new Error('qeval\'s Malloy bridge has no network');
  e.code = 'ERR_QEVAL_NO_NETWORK';
  throw e;
}

net.Socket.prototype.connect = refuse;
net.connect = refuse;
net.createConnection = refuse;
net.Server.prototype.listen = refuse;
dgram.Socket.prototype.send = refuse;
dgram.Socket.prototype.bind = refuse;
dgram.Socket.prototype.connect = refuse;
dns.lookup = refuse;
dns.resolve = refuse;
dns.promises.lookup = refuse;
dns.promises.resolve = refuse;
globalThis.fetch = refuse;
globalThis.WebSocket = undefined;
globalThis.EventSource = undefined;

// the protocol owns stdout: whatever a library prints goes to stderr
const toStderr = (...args) => process.stderr.write(args.map(String).join(' ') + '\n');
console.log = toStderr;
console.info = toStderr;
console.debug = toStderr;
console.warn = toStderr;
