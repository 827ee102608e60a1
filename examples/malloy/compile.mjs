// Compiles the example's Malloy queries to DuckDB SQL with the official Malloy
// compiler and writes build/suite.json, a qeval suite whose expected queries are the
// Spider gold (run on SQLite) and whose generated queries are the compiled Malloy (run
// on the DuckDB mirrors that `qeval mirror` made in build/mirror).
//
//   node compile.mjs [--spider DIR]     (DIR holds dev.json and database/; default
//                                        ../../../shared/data/spider)
import {readFile, writeFile, mkdir} from 'node:fs/promises';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {SingleConnectionRuntime} from '@malloydata/malloy';
import {DuckDBConnection} from '@malloydata/db-duckdb';

const here = path.dirname(fileURLToPath(import.meta.url));
const build = path.join(here, 'build');
const args = process.argv.slice(2);
const spider = path.resolve(args[args.indexOf('--spider') + 1] && args.includes('--spider')
  ? args[args.indexOf('--spider') + 1]
  : path.join(here, '..', '..', '..', 'shared', 'data', 'spider'));

const dev = JSON.parse(await readFile(path.join(spider, 'dev.json'), 'utf8'));
const {cases} = JSON.parse(await readFile(path.join(here, 'cases.json'), 'utf8'));

const runtimes = new Map(); // db_id → {runtime, model, connection}
async function runtimeFor(db) {
  if (!runtimes.has(db)) {
    // read-only, and no extensions fetched from the network
    const connection = new DuckDBConnection({
      name: 'duckdb',
      databasePath: path.join(build, 'mirror', `${db}.duckdb`),
      readOnly: true,
      enableExternalAccess: false,
    });
    const model = await readFile(path.join(here, `${db}.malloy`), 'utf8');
    runtimes.set(db, {runtime: new SingleConnectionRuntime({connection}), model, connection});
  }
  return runtimes.get(db);
}

const out = [];
let failed = 0;
for (const c of cases) {
  const item = dev[c.dev];
  if (!item) throw new Error(`cases.json: dev index ${c.dev} is not in ${spider}/dev.json`);
  const db = item.db_id;
  const {runtime, model} = await runtimeFor(db);
  let sql = '';
  let error;
  try {
    sql = await runtime.loadModel(model).loadQuery(c.malloy).getSQL();
  } catch (e) {
    // a query the compiler rejects is the system's failure: qeval scores it as one
    error = String(e.message || e).split('\n')[0];
    console.error(`dev-${c.dev}: Malloy did not compile: ${error}`);
    failed++;
  }
  const tags = [db, 'malloy'];
  if (c.wrong) tags.push('wrong-on-purpose');
  if (error) tags.push('compile-error');
  out.push({
    id: `dev-${c.dev}`,
    question: item.question,
    database: path.relative(build, path.join(spider, 'database', db, `${db}.sqlite`)),
    expected_query: item.query,
    generated_query: sql,
    tags,
  });
}
for (const {connection} of runtimes.values()) await connection.close();

const suite = {
  name: 'nl2malloy-spider',
  dialect: 'sql',
  // rows as a bag, columns in any order, values normalised, queries run as written
  // (Spider's official rules, spider-ts, also drop DISTINCT from both queries)
  mode: 'bag',
  // compiled Malloy names its columns its own way (singer_count, not count(*)), so a
  // case passes on its results alone; the other metrics are still reported
  pass_requires: ['execution'],
  // each case's generated SQL runs on the DuckDB mirror of its own database
  prediction_database: 'duckdb:mirror/{db}.duckdb',
  cases: out,
};
await mkdir(build, {recursive: true});
await writeFile(path.join(build, 'suite.json'), JSON.stringify(suite, null, 2) + '\n');
console.error(`compiled ${out.length - failed} of ${out.length} Malloy queries to DuckDB SQL; wrote build/suite.json`);
