// qeval's bridge to the official Malloy compiler. qeval starts it once per run and
// speaks JSON lines with it, one request at a time:
//
//   → {"id":1,"op":"hello"}
//   ← {"id":1,"ok":true,"version":"0.0.431"}
//   → {"id":2,"op":"load","model":"K","dialect":"duckdb","files":[{"url":"file:///m.malloy","text":"…"}]}
//   ← {"id":2,"ok":true}                      or {"id":2,"error":{"kind":"model","problems":[…]}}
//   → {"id":3,"op":"compile","model":"K","query":"run: singer -> { aggregate: singer_count }"}
//   ← {"id":3,"sql":"SELECT …","shape":{…},"ms":4.2}   or {"id":3,"error":{"kind":"query","problems":[…]}}
//
// While it serves a request the bridge may ask qeval for the columns of a table or of a
// SQL source of the model's connection, and waits for the answer:
//
//   ← {"ask":7,"op":"table","connection":"duckdb","path":"singer"}
//   → {"answer":7,"columns":[{"name":"Singer_ID","type":"INTEGER"}, …]}   or {"answer":7,"error":"…"}
//
// The bridge reads nothing itself: the model's text comes in the request and the
// database is known only through qeval's answers (qeval reads it, read-only). A model
// is parsed once and kept; each query of it is compiled on top of it.
import './sandbox.mjs';
import readline from 'node:readline';
import {
  Runtime, InMemoryURLReader, MalloyError,
  DuckDBDialect, PostgresDialect, MySQLDialect, TrinoDialect, SnowflakeDialect, StandardSQLDialect,
} from '@malloydata/malloy';
import {BaseConnection} from '@malloydata/malloy/connection';
import {describe} from './describe.mjs';

const version = '0.0.431';

const dialects = {
  duckdb: DuckDBDialect, postgres: PostgresDialect, mysql: MySQLDialect,
  trino: TrinoDialect, snowflake: SnowflakeDialect, standardsql: StandardSQLDialect,
};

// PostgreSQL's catalog names types by pg_type.typname; the dialect reads SQL's names
const pgTypes = {
  int2: 'smallint', int4: 'integer', int8: 'bigint', float4: 'real', float8: 'double precision',
  bool: 'boolean', varchar: 'character varying', bpchar: 'character', timestamptz: 'timestamp with time zone',
};

function send(msg) {
  process.stdout.write(JSON.stringify(msg) + '\n');
}

let nextAsk = 1;
const asks = new Map();

// ask qeval something about the connection and wait for the answer
function ask(q) {
  const id = nextAsk++;
  return new Promise((resolve) => {
    asks.set(id, resolve);
    send({ask: id, ...q});
  });
}

// A connection that knows its database only through qeval: the schema of a table or
// of a SQL source is asked for; running SQL is qeval's job, never the bridge's.
class AskingConnection extends BaseConnection {
  constructor(name, dialect) {
    super();
    this._name = name;
    this._dialectName = dialect;
    this._dialect = new dialects[dialect]();
  }
  get name() { return this._name; }
  get dialectName() { return this._dialectName; }
  getDigest() { return `qeval:${this._name}:${this._dialectName}`; }
  async runSQL() { throw new Error('qeval runs the SQL; the Malloy bridge only compiles'); }

  fields(columns) {
    return columns.map((c) => {
      let t = c.type || 'VARCHAR';
      if (this._dialectName === 'postgres') t = pgTypes[t] ?? t;
      return {...this._dialect.sqlTypeToMalloyType(t), name: c.name};
    });
  }

  async fetchTableSchema(tableName, tablePath) {
    const a = await ask({op: 'table', connection: this._name, path: tablePath});
    if (a.error) return a.error;
    return {type: 'table', name: tableName, tablePath, dialect: this._dialectName, connection: this._name, fields: this.fields(a.columns ?? [])};
  }

  async fetchSelectSchema(req) {
    const a = await ask({op: 'sql', connection: this._name, sql: req.selectStr});
    if (a.error) return a.error;
    return {type: 'sql_select', name: req.connection + ':' + req.selectStr, selectStr: req.selectStr,
      dialect: this._dialectName, connection: this._name, fields: this.fields(a.columns ?? [])};
  }
}

const models = new Map(); // key → {runtime, materializer, urls}

function problemsOf(e, urls) {
  const list = e instanceof MalloyError ? e.problems ?? [] : [];
  const out = list
    .filter((p) => p.severity !== 'warn' && p.severity !== 'debug')
    .map((p) => {
      const s = p.at?.range?.start;
      const url = p.at?.url ?? '';
      return {code: p.code ?? '', message: p.message ?? String(p), file: urls.has(url) ? url : '', line: s ? s.line + 1 : 0, col: s ? s.character + 1 : 0};
    });
  if (out.length === 0) out.push({code: 'error', message: String(e?.message ?? e).split('\n')[0], file: '', line: 0, col: 0});
  return out;
}

async function load(req) {
  const files = new Map(req.files.map((f) => [f.url, f.text]));
  const urls = new Set(files.keys());
  let root = req.files[0].url;
  if (req.files.length > 1) {
    // several files make one model: a root that imports each of them
    root = 'internal://qeval/' + encodeURIComponent(req.model) + '/root.malloy';
    files.set(root, req.files.map((f) => `import ${JSON.stringify(f.url)}`).join('\n') + '\n');
  }
  const conns = new Map();
  const connections = {
    lookupConnection: async (name) => {
      const n = name ?? req.dialect;
      if (!conns.has(n)) conns.set(n, new AskingConnection(n, req.dialect));
      return conns.get(n);
    },
  };
  const runtime = new Runtime({urlReader: new InMemoryURLReader(files), connections});
  const materializer = runtime.loadModel(new URL(root));
  try {
    await materializer.getModel();
  } catch (e) {
    return {error: {kind: 'model', problems: problemsOf(e, urls)}};
  }
  models.set(req.model, {runtime, materializer, urls});
  return {ok: true};
}

// a bare name is a query the model names
const namedQuery = /^\s*[A-Za-z_][A-Za-z_0-9]*\s*$/;

async function compile(req) {
  const m = models.get(req.model);
  if (!m) return {error: {kind: 'protocol', problems: [{code: 'no-model', message: `model ${req.model} is not loaded`, file: '', line: 0, col: 0}]}};
  const text = namedQuery.test(req.query) ? `run: ${req.query.trim()}` : req.query;
  const start = performance.now();
  let prepared;
  try {
    prepared = await m.materializer.loadQuery(text).getPreparedQuery();
  } catch (e) {
    return {error: {kind: 'query', problems: problemsOf(e, m.urls)}};
  }
  let sql;
  try {
    sql = prepared.preparedResult.sql;
  } catch (e) {
    return {error: {kind: 'query', problems: problemsOf(e, m.urls)}};
  }
  let shape;
  try {
    shape = describe(prepared._query, prepared._modelDef);
  } catch (e) {
    // the SQL is right; only the description failed: say so, keep the SQL
    shape = {dialect: 'malloy', kind: 'query', source: 'compiler', describe_error: String(e?.message ?? e)};
  }
  return {sql, shape, ms: performance.now() - start};
}

// warm compiles a small model of its own and a few queries of the usual kinds, so
// the compiler's code is compiled by V8 before the first real query: a cold compiler
// takes 100–300 ms per query, a warm one a few.
async function warm() {
  const cols = [{name: 'id', type: 'INTEGER'}, {name: 'name', type: 'VARCHAR'}, {name: 'n', type: 'DOUBLE'}, {name: 'd', type: 'DATE'}, {name: 'b', type: 'BOOLEAN'}];
  const conn = new AskingConnection('duckdb', 'duckdb');
  conn.fetchTableSchema = async (tableName, tablePath) => ({type: 'table', name: tableName, tablePath, dialect: 'duckdb', connection: 'duckdb', fields: conn.fields(cols)});
  const url = 'internal://qeval/warm.malloy';
  const text = `source: t is duckdb.table('t') extend { primary_key: id
  measure: c is count(), s is sum(n)
  dimension: big is n > 10 }
source: u is duckdb.table('u') extend { join_one: t on id = t.id; measure: uc is count() }`;
  const runtime = new Runtime({urlReader: new InMemoryURLReader(new Map([[url, text]])), connections: {lookupConnection: async () => conn}});
  const mm = runtime.loadModel(new URL(url));
  const queries = [
    'run: t -> { aggregate: c }',
    "run: t -> { where: name = 'x' and n > 2 or b; group_by: name; aggregate: c, a is avg(n), mn is min(n), mx is max(n); order_by: c desc; limit: 3 }",
    "run: t -> { select: name, n; where: name ~ '%x%', n >= 1, n <= 5, d = @2020-01-01; order_by: n } -> { select: name }",
    'run: u -> { group_by: t.name, big is t.n > 1; aggregate: uc, k is count(t.id), t.c; having: uc > 1 }',
    "run: t -> { where: n ? 1 | 2, name != null, not b; group_by: name; aggregate: c; limit: 1 } -> { group_by: name; aggregate: z is count() }",
    'run: u -> { where: t.id = null; select: id }',
  ];
  for (let i = 0; i < 1; i++) {
    for (const q of queries) {
      try {
        const pq = await mm.loadQuery(q).getPreparedQuery();
        pq.preparedResult.sql;
        describe(pq._query, pq._modelDef);
      } catch {
        // a warm-up that fails only leaves the compiler colder
      }
    }
  }
}

async function serve(req) {
  switch (req.op) {
    case 'hello':
      if (req.warm) await warm();
      return {ok: true, version};
    case 'load':
      return load(req);
    case 'compile':
      return compile(req);
  }
  return {error: {kind: 'protocol', problems: [{code: 'bad-op', message: `unknown op ${JSON.stringify(req.op)}`, file: '', line: 0, col: 0}]}};
}

// requests are served one after the other; answers to asks are taken as they come
const queue = [];
let busy = false;

async function drain() {
  if (busy) return;
  busy = true;
  while (queue.length) {
    const req = queue.shift();
    let reply;
    try {
      reply = await serve(req);
    } catch (e) {
      reply = {error: {kind: 'internal', problems: [{code: 'internal', message: String(e?.stack ?? e), file: '', line: 0, col: 0}]}};
    }
    send({id: req.id, ...reply});
  }
  busy = false;
}

const rl = readline.createInterface({input: process.stdin, crlfDelay: Infinity});
rl.on('line', (line) => {
  if (!line.trim()) return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    process.stderr.write('qeval malloy bridge: a line that is not JSON\n');
    return;
  }
  if (msg.answer !== undefined) {
    const resolve = asks.get(msg.answer);
    asks.delete(msg.answer);
    if (resolve) resolve(msg);
    return;
  }
  queue.push(msg);
  drain();
});
rl.on('close', () => process.exit(0));
