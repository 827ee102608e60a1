// describe turns a query as the Malloy compiler holds it (its pipeline of segments,
// each with its fields, filters, order and limit, over a source of the model) into
// what qeval's metrics read: the generic shape (tables, filters, aggregates, grouping,
// order, limit; the words of qeval.Shape) and the Malloy part (the source, the joins,
// the model's measures and dimensions the query used and the ones it re-derived
// inline). Everything is read from the compiler's description, never from the text.

// render writes an expression tree as short Malloy-like text. Two trees that render
// alike compute the same thing; prefix is the join path the tree's own paths are
// relative to (a measure of a joined source).
export function render(e, prefix = []) {
  if (e === null || e === undefined) return '';
  if (typeof e !== 'object') return String(e);
  const path = (p) => [...prefix, ...(p ?? [])].join('.');
  const kids = e.kids ?? {};
  switch (e.node) {
    case '':
      return '';
    case 'field':
      return path(e.path);
    case 'outputField':
      return e.name;
    case 'numberLiteral':
      return String(e.literal);
    case 'stringLiteral':
      return `'${e.literal}'`;
    case 'true':
    case 'false':
    case 'null':
      return e.node;
    case 'aggregate': {
      const on = e.structPath ? path(e.structPath) + '.' : prefix.length ? prefix.join('.') + '.' : '';
      if (e.function === 'count' && (!e.e || e.e.node === '')) return `${on}count()`;
      if (e.function === 'distinct') return `count(distinct ${render(e.e, prefix)})`;
      return `${e.structPath ? on : ''}${e.function}(${render(e.e, prefix)})`;
    }
    case 'not':
      return `not ${render(e.e, prefix)}`;
    case 'unary-':
      return `-${render(e.e, prefix)}`;
    case '()':
      return `(${render(e.e, prefix)})`;
    case 'function_call':
      return `${e.name}(${(kids.args ?? []).map((a) => render(a, prefix)).join(', ')})`;
    case 'filterCondition':
      return render(e.e, prefix);
    case 'is-null':
      return `${render(e.e, prefix)} = null`;
    case 'is-not-null':
      return `${render(e.e, prefix)} != null`;
    case 'in':
      return `${render(kids.e, prefix)} ${e.not ? 'not in' : 'in'} (${(kids.oneOf ?? []).map((x) => render(x, prefix)).join(', ')})`;
  }
  if (kids.left !== undefined && kids.right !== undefined) {
    return `${render(kids.left, prefix)} ${e.node} ${render(kids.right, prefix)}`;
  }
  return JSON.stringify(strip(e));
}

// strip drops what says where a tree was written, keeping what it computes.
function strip(e) {
  if (Array.isArray(e)) return e.map(strip);
  if (!e || typeof e !== 'object') return e;
  const out = {};
  for (const k of Object.keys(e).sort()) {
    if (['at', 'location', 'code', 'refSummary', 'fieldUsage', 'drillExpression'].includes(k)) continue;
    out[k] = strip(e[k]);
  }
  return out;
}

const nameOf = (f) => f.as ?? f.name;

// fieldAt finds the field a path names in a source, through its joins.
function fieldAt(sd, path) {
  let cur = sd;
  for (let i = 0; i < path.length; i++) {
    const f = (cur?.fields ?? []).find((x) => nameOf(x) === path[i]);
    if (!f) return undefined;
    if (i === path.length - 1) return f;
    cur = f;
  }
  return undefined;
}

// declared lists the measures and dimensions the model declares on a source and on
// the sources it joins (to a small depth), each with the text it computes.
function declared(sd, prefix = [], depth = 0, out = []) {
  for (const f of sd?.fields ?? []) {
    if (f.join) {
      if (depth < 3) declared(f, [...prefix, nameOf(f)], depth + 1, out);
      continue;
    }
    // a dimension that only renames a column is not a computation to reuse
    if (!f.e || f.e.node === 'field') continue;
    out.push({
      name: [...prefix, nameOf(f)].join('.'),
      kind: f.expressionType === 'aggregate' ? 'measure' : 'dimension',
      expr: render(f.e, prefix),
    });
  }
  return out;
}

function at(loc) {
  const s = loc?.range?.start;
  return s ? {line: s.line + 1, col: s.character + 1} : {};
}

const comparisons = new Set(['=', '!=', '>', '<', '>=', '<=', 'like', '!like']);

// conjuncts splits a filter on its ands: `a and b` and `where: a, b` say the same.
function conjuncts(e, out = []) {
  if (e?.node === 'and') {
    conjuncts(e.kids.left, out);
    conjuncts(e.kids.right, out);
  } else if (e?.node === '()' ) {
    conjuncts(e.e, out);
  } else if (e) {
    out.push(e);
  }
  return out;
}

// comparisonsOf lists the comparisons of a filter (through and, or, not and
// parentheses) as column, operator and literal.
function comparisonsOf(e, clause, out) {
  if (!e || typeof e !== 'object') return;
  if (e.node === 'and' || e.node === 'or') {
    comparisonsOf(e.kids.left, clause, out);
    comparisonsOf(e.kids.right, clause, out);
    return;
  }
  if (e.node === '()' || e.node === 'filterCondition') return comparisonsOf(e.e, clause, out);
  if (e.node === 'not' && e.e?.node === 'field') {
    out.push({clause, column: render(e.e), op: '=', value: 'false'});
    return;
  }
  if (e.node === 'field') {
    out.push({clause, column: render(e), op: '=', value: 'true'});
    return;
  }
  if (e.node === 'is-null' || e.node === 'is-not-null') {
    out.push({clause, column: render(e.e), op: e.node === 'is-null' ? '=' : '!=', value: 'null'});
    return;
  }
  if (e.node === 'in') {
    const vals = (e.kids.oneOf ?? []).map((x) => render(x));
    out.push({clause, column: render(e.kids.e), op: e.not ? 'not in' : 'in', value: vals.join(', ')});
    return;
  }
  if (comparisons.has(e.node)) {
    const {left, right} = e.kids;
    const literal = (x) => ['numberLiteral', 'stringLiteral', 'true', 'false', 'null'].includes(x?.node);
    const [col, lit] = literal(left) && !literal(right) ? [right, left] : [left, right];
    out.push({clause, column: render(col), op: e.node, value: literal(lit) ? render(lit) : ''});
    return;
  }
  out.push({clause, column: render(e), op: '', value: ''});
}

// aggregatesOf lists the aggregate calls of an expression as function and argument.
function aggregatesOf(e, prefix, out) {
  if (!e || typeof e !== 'object') return;
  if (e.node === 'aggregate') {
    if (e.function === 'count' && (!e.e || e.e.node === '')) out.push({func: 'count', arg: '*'});
    else if (e.function === 'distinct') out.push({func: 'count', arg: 'DISTINCT ' + render(e.e, prefix)});
    else out.push({func: e.function, arg: render(e.e, prefix)});
    return;
  }
  for (const v of Object.values(e.kids ?? {})) {
    if (Array.isArray(v)) v.forEach((x) => aggregatesOf(x, prefix, out));
    else aggregatesOf(v, prefix, out);
  }
  if (e.e) aggregatesOf(e.e, prefix, out);
}

// fieldPaths lists the field paths an expression reads.
function fieldPaths(e, out = []) {
  if (!e || typeof e !== 'object') return out;
  if (Array.isArray(e)) {
    e.forEach((x) => fieldPaths(x, out));
    return out;
  }
  if (e.node === 'field' && Array.isArray(e.path)) out.push(e.path);
  if (e.structPath) out.push([...e.structPath, '']);
  for (const k of ['e', 'kids']) {
    if (e[k] && typeof e[k] === 'object') {
      if (k === 'kids') Object.values(e.kids).forEach((x) => fieldPaths(x, out));
      else fieldPaths(e[k], out);
    }
  }
  return out;
}

// subtrees calls fn on every expression node of e, outermost first; fn returns true
// to stop going down that branch.
function subtrees(e, fn) {
  if (!e || typeof e !== 'object' || typeof e.node !== 'string') return;
  if (fn(e)) return;
  if (e.e) subtrees(e.e, fn);
  for (const v of Object.values(e.kids ?? {})) {
    if (Array.isArray(v)) v.forEach((x) => subtrees(x, fn));
    else subtrees(v, fn);
  }
}

function tableOf(sd, fallback) {
  if (sd?.type === 'table' && sd.tablePath) return sd.tablePath;
  return fallback;
}

// describe returns the shape of a compiled query (its pipeline over a source of
// modelDef).
export function describe(query, modelDef) {
  const ref = query.structRef;
  const sd = typeof ref === 'string' ? modelDef.contents?.[ref] : ref;
  const sourceName = typeof ref === 'string' ? ref : nameOf(sd ?? {}) ?? '';
  const decl = declared(sd);
  const byExpr = new Map();
  for (const d of decl) if (!byExpr.has(d.expr)) byExpr.set(d.expr, d);

  const shape = {
    dialect: 'malloy', kind: 'query', tables: [], columns: [], filters: [], aggregates: [],
    group_by: [], order_by: [], output: [], source: 'compiler',
  };
  const m = {
    source: sourceName, joins: [], stages: query.pipeline.length, group_by: [], aggregates: [],
    filters: [], order_by: [], limit: '', used: [], rederived: [], declared: decl,
  };
  const joins = new Set();
  const columns = new Map();
  const used = new Map();
  const noteUse = (path) => {
    const f = fieldAt(sd, path);
    if (!f || f.join) return undefined;
    const prefix = path.slice(0, -1);
    if (prefix.length) joins.add(prefix.join('.'));
    const name = path.join('.');
    if (f.e && f.e.node !== 'field') {
      if (!used.has(name)) used.set(name, {name, kind: f.expressionType === 'aggregate' ? 'measure' : 'dimension'});
    } else if (!columns.has(name)) {
      const j = prefix.length ? fieldAt(sd, prefix) : sd;
      columns.set(name, {table: tableOf(j, prefix.join('.') || sourceName), name: path[path.length - 1]});
    }
    return f;
  };
  const readPaths = (e) => {
    for (const p of fieldPaths(e)) {
      if (p[p.length - 1] === '') {
        if (p.length > 1) joins.add(p.slice(0, -1).join('.'));
      } else {
        noteUse(p);
      }
    }
  };
  // rederive records the parts of an inline expression that compute what the model
  // already declares (count() where the model has singer_count)
  const rederive = (e, name, loc) => {
    subtrees(e, (x) => {
      if (x.node === 'field' || x.node === 'outputField' || /Literal$/.test(x.node)) return true;
      const d = byExpr.get(render(x));
      if (!d) return false;
      m.rederived.push({field: name, expr: render(x), model_field: d.name, kind: d.kind, ...at(x.at ?? loc)});
      return true;
    });
  };

  query.pipeline.forEach((seg, stage) => {
    const first = stage === 0;
    const reduce = seg.type === 'reduce';
    for (const qf of seg.queryFields ?? []) {
      if (qf.type === 'fieldref') {
        const name = qf.path.join('.');
        const f = first ? noteUse(qf.path) : undefined;
        const isMeasure = f?.expressionType === 'aggregate';
        if (isMeasure) {
          const prefix = qf.path.slice(0, -1);
          m.aggregates.push(render(f.e, prefix));
          aggregatesOf(f.e, prefix, shape.aggregates);
        } else if (reduce) {
          m.group_by.push(f?.e && f.e.node !== 'field' ? render(f.e, qf.path.slice(0, -1)) : name);
          shape.group_by.push(name);
        }
        continue;
      }
      if (!qf.e) continue; // a nested view
      if (first) readPaths(qf.e);
      if (first) rederive(qf.e, qf.name, qf.location);
      if (qf.expressionType === 'aggregate') {
        m.aggregates.push(render(qf.e));
        aggregatesOf(qf.e, [], shape.aggregates);
      } else if (reduce) {
        m.group_by.push(render(qf.e));
        shape.group_by.push(qf.code ?? render(qf.e));
      }
    }
    for (const f of seg.filterList ?? []) {
      const clause = f.expressionType === 'aggregate' ? 'having' : 'where';
      if (first) readPaths(f.e);
      if (first) rederive(f.e, '', undefined);
      for (const c of conjuncts(f.e)) m.filters.push(render(c));
      comparisonsOf(f.e, clause, shape.filters);
    }
    if (seg.orderBy && !seg.defaultOrderBy) {
      const out = (seg.outputStruct?.fields ?? []).map(nameOf);
      for (const o of seg.orderBy) {
        const field = typeof o.field === 'number' ? out[o.field - 1] ?? String(o.field) : o.field;
        m.order_by.push(`${field} ${o.dir ?? 'asc'}`);
        shape.order_by.push({expr: field, desc: o.dir === 'desc'});
      }
    }
    if (seg.limit !== undefined) {
      m.limit = String(seg.limit);
      shape.limit = String(seg.limit);
    }
  });
  const last = query.pipeline[query.pipeline.length - 1];
  shape.output = (last?.outputStruct?.fields ?? []).map(nameOf);
  m.joins = [...joins].sort();
  m.used = [...used.values()];
  shape.tables = [tableOf(sd, sourceName)];
  for (const j of m.joins) {
    const t = tableOf(fieldAt(sd, j.split('.')), j);
    if (!shape.tables.includes(t)) shape.tables.push(t);
  }
  shape.columns = [...columns.values()];
  if (m.limit === '') delete m.limit;
  shape.malloy = m;
  return shape;
}
