// Package malloy compiles Malloy queries to SQL with the official Malloy compiler
// (the npm package @malloydata/malloy, pinned in node/package-lock.json) and describes
// each query as the compiler sees it (qeval.Shape with its Malloy part).
//
// The compiler runs in Node, in one long-lived helper process per Compiler (node/
// bridge.mjs, qeval's own code) that speaks JSON lines on its stdin and stdout; a
// model is parsed once and each query compiled on top of it. The helper reads no file
// and no database: the model's text comes in the request, and the schema of each
// table the model names is asked of qeval, which reads it through its own read-only
// executor. It runs under Node's permission model (reading only its own folder, no
// child process, no worker), with Node's network modules disabled, and on Linux in a
// network namespace of its own where the system allows one.
//
// The npm packages are installed once, by npm from the registry, into a folder of the
// user cache named by the content of the lock file and the bridge (DefaultDir). With
// no Node.js (20 or later) on the machine, Compile fails with CodeUnavailable and a
// message saying what to install; a query the compiler rejects fails with CodeCompile
// and the compiler's message, line and column. A helper that dies is started again
// once; after a second death every Compile fails with CodeUnavailable. A helper still
// busy when a call's context ends is killed (the call is a timeout) and started again
// for the next call.
package malloy
