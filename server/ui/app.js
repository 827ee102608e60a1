// The qeval page: start a run, follow it case by case through server-sent events,
// then show its summary. It calls the same JSON API as any other client.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { token: sessionStorage.getItem("qeval-token") || "", run: null, source: null, threshold: 0.9,
  table: null, sort: "", page: 1, compare: null, comparePage: 1, progress: null };

// ---- API ----------------------------------------------------------------------------

class APIError extends Error {
  constructor(status, body) {
    const e = (body && body.error) || {};
    super(e.message || "request failed (" + status + ")");
    this.status = status;
    this.code = e.code;
    this.field = e.field;
    this.hint = e.hint;
  }
}

async function api(path, options = {}) {
  const headers = Object.assign({}, options.headers);
  if (state.token) headers.Authorization = "Bearer " + state.token;
  const resp = await fetch(path, Object.assign({}, options, { headers }));
  const body = await resp.json().catch(() => null);
  if (!resp.ok) {
    const err = new APIError(resp.status, body);
    if (resp.status === 401) askToken();
    throw err;
  }
  return body;
}

function showError(err) {
  const box = $("alert");
  let text = err.message || String(err);
  if (err.field) text = err.field + ": " + text;
  if (err.hint) text += "\nHint: " + err.hint;
  box.textContent = text;
  box.hidden = false;
}

function clearError() {
  $("alert").hidden = true;
  $("alert").textContent = "";
}

function askToken() {
  const form = $("token-form");
  if (!form.hidden) return;
  form.hidden = false;
  $("token").focus();
}

// ---- formatting ---------------------------------------------------------------------

const pct = (x) => (x == null ? "n/a" : (Math.round(x * 1000) / 10).toString() + "%");
const COMPONENTS = [
  ["schema_match", "Schema"],
  ["semantic_similarity", "Semantic"],
  ["results_match", "Results"],
  ["llm_grading", "LLM"],
];

// componentLine shows each component's score and the weight it had in this case's total:
// a skipped component weighs nothing, the others are renormalised to sum to 100%.
function componentLine(c) {
  const m = c.metrics || {};
  const w = state.weights || {};
  let sum = 0;
  for (const [key] of COMPONENTS) {
    const r = m[key];
    if (r && r.skipped == null) sum += w[key] == null ? 0.25 : w[key];
  }
  return COMPONENTS.map(([key, label]) => {
    const r = m[key];
    if (!r) return label + ": n/a";
    if (r.skipped != null) return label + ": skipped";
    const wk = w[key] == null ? 0.25 : w[key];
    return label + ": " + pct(r.score) + (sum > 0 ? " ×" + pct(wk / sum) : "");
  }).join(" | ");
}

function executionLine(c) {
  const v = c.execution;
  if (!v) {
    const em = c.metrics && c.metrics.execution_match;
    if (em && em.skipped) return { ok: false, text: "Not executed: " + em.skipped };
    return { ok: false, text: c.reason ? "Not executed: " + c.reason : "Not executed" };
  }
  if (v.outcome === "match" || v.outcome === "mismatch") {
    const em = c.metrics && c.metrics.execution_match;
    let rows = em && em.details ? em.details.generated_rows : undefined;
    if (rows == null && v.pred_result) rows = v.pred_result.rows.length;
    return { ok: true, text: "Query executed (results: " + (rows == null ? "?" : rows) + ")" };
  }
  return { ok: false, text: "Execution error (" + v.outcome + "): " + (v.error || "no message") };
}

// goldText says which gold of a case with several matched ("" for a case with one):
// matched is its number from 1 (0: none), n how many golds there are (0: unknown).
function goldText(matched, n) {
  if (matched && n > 1) return "Gold " + matched + " of " + n + " matched";
  if (matched) return "Gold " + matched + " matched";
  if (n > 1) return "None of the " + n + " golds matched";
  return "";
}

function passed(c) {
  return c.status === "PASS";
}

// scoreLine gives the total and the verdict with its real reason: a total that reaches
// the threshold fails only for another reason (the results differ under
// pass_requires: execution, the query did not run), which is named, never "<threshold".
function scoreLine(c) {
  const t = pct(state.threshold);
  if (c.total_score == null) return "Score: n/a (" + c.status + (c.reason ? ": " + c.reason : "") + ")";
  const score = "Score: " + pct(c.total_score);
  if (passed(c)) return score + " (PASS ≥" + t + ")";
  if (c.total_score + 1e-9 < state.threshold) return score + " (" + c.status + " <" + t + ")";
  return score + " (" + c.status + (c.reason ? ": " + c.reason : "") + ")";
}

function reasoning(c) {
  const g = c.metrics && c.metrics.llm_grading;
  if (g && g.details && g.details.reasoning) return g.details.reasoning;
  return "";
}

// caseItem renders one case: always with textContent, never as markup.
function caseItem(c, full) {
  const li = document.createElement("li");
  li.className = "case " + (passed(c) ? "pass" : "fail");
  li.dataset.id = c.id;
  const head = document.createElement("p");
  head.className = "head";
  const mark = document.createElement("span");
  mark.className = "mark";
  mark.textContent = passed(c) ? "✓" : "✗";
  mark.setAttribute("aria-label", passed(c) ? "passed" : "failed");
  head.append(mark, document.createTextNode(c.id + (c.question ? " — " + c.question : "")));
  li.append(head);
  const pre = document.createElement("pre");
  pre.textContent = c.generated_query || "(no generated query)";
  li.append(pre);
  const add = (text, cls) => {
    const p = document.createElement("p");
    p.textContent = text;
    if (cls) p.className = cls;
    li.append(p);
    return p;
  };
  add(executionLine(c).text, "exec");
  // a full case lists its golds; a table row (rowCase) counts them
  const g = goldText(c.matched_gold, c.golds != null ? c.golds : (c.expected_queries || []).length);
  if (g) add(g, "gold");
  add(scoreLine(c), "score");
  add(componentLine(c), "components");
  if (full && !passed(c)) {
    if (c.reason) add("Why: " + c.reason, "why");
    const r = reasoning(c);
    if (r) add("LLM reasoning: " + r, "why");
  }
  return li;
}

// ---- navigation ---------------------------------------------------------------------
//
// Every view has a URL: /runs/{id} (with ?show=, ?class=, ?q=, ?sort=, ?page= and #case-{id}),
// /compare?base={id}&head={id}. Opening a view pushes it; filtering replaces it, so
// reload and back/forward come back to the same view.

function go(url) {
  if (location.pathname + location.search + location.hash !== url) history.pushState(null, "", url);
  return route();
}

function setQuery(params) {
  const q = new URLSearchParams(location.search);
  for (const [k, v] of Object.entries(params)) {
    if (v == null || v === "" || v === "all" || v === 1) q.delete(k);
    else q.set(k, v);
  }
  const s = q.toString();
  // a new filter, search, sort or page redraws the rows: a case link no longer applies
  history.replaceState(null, "", location.pathname + (s ? "?" + s : ""));
}

async function route() {
  clearError();
  const path = location.pathname;
  const m = path.match(/^\/runs\/([0-9a-f]+)$/);
  if (m) {
    $("compare").hidden = true;
    await showRun(m[1]);
    return;
  }
  if (path === "/compare") {
    const q = new URLSearchParams(location.search);
    await showCompare(q.get("base") || "", q.get("head") || "");
    return;
  }
  if (state.source) state.source.close();
  state.source = null;
  for (const id of ["run", "summary", "compare"]) $(id).hidden = true;
}

// ---- live run -----------------------------------------------------------------------

// The live lines keep the latest maxLive cases; the table has them all when the run ends.
const maxLive = 300;

function setProgress(p) {
  const bar = $("progress");
  bar.max = Math.max(p.total, 1);
  bar.value = p.done;
  $("progress-text").textContent = p.done + " of " + p.total + " cases — " + p.passed + " passed, " +
    p.failed + " failed, " + p.errors + " errors" + (p.unscorable ? ", " + p.unscorable + " unscorable" : "");
  $("run-status").textContent = "Status: " + p.status;
  $("cancel").disabled = p.status !== "running";
  state.progress = Object.assign({ run: state.run }, p);
  followPastRow();
}

// The past-runs row of the followed run shows its latest progress, whether the progress
// or the list of runs arrives last.
function followPastRow() {
  const p = state.progress;
  const row = p && p.run === state.run && document.querySelector('#runs tr[data-run="' + CSS.escape(state.run) + '"]');
  if (!row) return;
  row.cells[2].textContent = p.status;
  row.cells[3].textContent = p.done + " / " + p.total;
  row.cells[4].textContent = pct(p.done ? p.passed / p.done : 0);
}

function follow(run) {
  if (state.source) state.source.close();
  state.run = run.id;
  state.threshold = run.threshold;
  state.weights = run.weights;
  $("run").hidden = false;
  $("summary").hidden = true;
  $("live").replaceChildren();
  $("live").dataset.run = run.id;
  $("run-title").textContent = "Run " + run.id + " — " + run.suite;
  setProgress({ done: run.done || 0, total: run.total, passed: run.passed || 0, failed: run.failed || 0, errors: run.errors || 0, unscorable: run.unscorable || 0, status: run.status });
  let url = "/api/runs/" + run.id + "/events";
  if (state.token) url += "?token=" + encodeURIComponent(state.token);
  const es = new EventSource(url);
  state.source = es;
  es.addEventListener("case", (e) => {
    const ev = JSON.parse(e.data);
    const live = $("live");
    live.append(caseItem(ev.case, false));
    while (live.children.length > maxLive) live.firstElementChild.remove();
  });
  es.addEventListener("progress", (e) => setProgress(JSON.parse(e.data)));
  es.addEventListener("summary", (e) => {
    es.close();
    state.source = null;
    const v = JSON.parse(e.data);
    setProgress(Object.assign({}, v, { total: v.total }));
    if (location.pathname === "/runs/" + v.id) showRun(v.id).catch(showError);
    loadRuns().catch(showError);
  });
  es.onerror = () => {
    if (es.readyState === EventSource.CLOSED) showError(new Error("the event stream closed; reload the page to see the run"));
  };
}

// ---- a run --------------------------------------------------------------------------

async function showRun(id) {
  const v = await api("/api/runs/" + id + "?cases=none");
  if (v.status === "running") {
    if (state.source && state.run === v.id) return; // already following it
    follow(v);
    return;
  }
  if (state.source) state.source.close();
  state.source = null;
  state.run = v.id;
  state.threshold = v.threshold;
  state.weights = v.weights;
  // an ended run opened cold has no live lines: its cases are in the table
  $("run").hidden = $("live").dataset.run !== v.id;
  setProgress(Object.assign({}, v));
  const table = await api("/api/runs/" + id + "/rows");
  renderSummary(v, table);
  await renderCases(table);
}

function renderSummary(v, table) {
  $("summary-title").textContent = "Summary of run " + v.id + " — " + v.suite;
  const rows = table.rows;
  const ok = rows.filter(passed);
  // an unscorable case (its gold query uses what the engine does not support) is
  // neither a pass nor a failure: it is listed with the failures and left out of the rate
  const unscorable = rows.filter((c) => c.status === "UNSCORABLE");
  const bad = rows.filter((c) => !passed(c));
  $("success-count").textContent = ok.length;
  $("error-count").textContent = bad.length;
  // the sections the seed describes, under the table that already lists every case:
  // collapsed to their count, the first cards drawn when opened, the rest on demand
  for (const [group, list, more, items] of [["success-group", "success-list", "success-more", ok], ["error-group", "error-list", "error-more", bad]]) {
    const d = $(group);
    const button = $(more);
    $(list).replaceChildren();
    button.hidden = true;
    d.dataset.drawn = "";
    d.ontoggle = () => {
      if (!d.open || d.dataset.drawn) return;
      d.dataset.drawn = "1";
      $(list).replaceChildren(...items.slice(0, firstCards).map((r) => caseItem(rowCase(r), true)));
      const rest = items.length - firstCards;
      if (rest <= 0) return;
      button.textContent = "Show the other " + rest + (rest === 1 ? " case" : " cases") + " (first " + firstCards + " of " + items.length + " shown)";
      button.hidden = false;
      button.onclick = () => {
        $(list).append(...items.slice(firstCards).map((r) => caseItem(rowCase(r), true)));
        button.hidden = true;
      };
    };
    d.open = false;
  }
  const scorable = rows.length - unscorable.length;
  let text = ok.length + " passed, " + (bad.length - unscorable.length) + " failed or errored, of " + rows.length + " cases";
  if (unscorable.length) text += " (" + unscorable.length + " unscorable: the engine does not support their gold query)";
  text += ". Pass rate " + pct(scorable ? ok.length / scorable : 0) + ". Threshold " + pct(v.threshold) + ".";
  if (v.summary && v.summary.mean_score != null) text += " Mean score " + pct(v.summary.mean_score) + ".";
  if (v.status !== "finished") text += " The run " + v.status + (v.error ? ": " + v.error : "") + ".";
  $("summary-counts").textContent = text;
  for (const [id, file] of [["download-json", "report.json"], ["download-xlsx", "report.xlsx"]]) {
    $(id).href = "/api/runs/" + v.id + "/" + file;
    $(id).setAttribute("download", "");
  }
  $("run-link").href = "/runs/" + v.id;
  const charts = $("charts");
  charts.replaceChildren();
  for (const c of v.charts || []) {
    const fig = document.createElement("figure");
    const cap = document.createElement("figcaption");
    cap.textContent = c.title;
    const box = document.createElement("div");
    box.innerHTML = c.svg; // drawn by the server, every text in it escaped
    fig.append(cap, box);
    charts.append(fig);
  }
  $("summary").hidden = false;
}

// firstCards is how many cards an opened Success or Error section draws at first.
const firstCards = 20;

// rowCase is a table row in the shape caseItem reads.
function rowCase(r) {
  const metrics = {};
  for (const [k, v] of Object.entries(r.components || {})) metrics[k] = v == null ? { skipped: "" } : { score: v };
  if (r.reasoning) metrics.llm_grading = Object.assign({}, metrics.llm_grading, { details: { reasoning: r.reasoning } });
  if (r.generated_rows != null) metrics.execution_match = { details: { generated_rows: r.generated_rows } };
  return { id: r.id, status: r.status, question: r.question, generated_query: r.generated_query, total_score: r.score,
    reason: r.reason, metrics, execution: r.outcome ? { outcome: r.outcome, error: r.exec_error } : null,
    matched_gold: r.matched_gold, golds: r.golds };
}

// ---- the case table -----------------------------------------------------------------

const PAGE = 100;

const FILTERS = {
  all: () => true,
  passed: (r) => r.status === "PASS",
  failed: (r) => r.status === "FAIL",
  errors: (r) => r.status === "ERROR",
  unscorable: (r) => r.status === "UNSCORABLE",
  unsafe: (r) => (r.flags || []).includes("unsafe_let_through"),
  judge: (r) => (r.flags || []).includes("judge_disagrees"),
  flagged: (r) => (r.flags || []).includes("gold_flagged"),
};

function label(component) {
  const c = COMPONENTS.find(([k]) => k === component);
  return c ? c[1] : component;
}

function columns(table) {
  const cols = [
    { key: "id", label: "Case", get: (r) => r.id },
    { key: "status", label: "Status", get: (r) => r.status },
    { key: "score", label: "Score", get: (r) => r.score, num: true },
  ];
  for (const c of table.components) cols.push({ key: c, label: label(c), get: (r) => r.components[c], num: true });
  cols.push({ key: "outcome", label: "Outcome", get: (r) => r.outcome || "" });
  cols.push({ key: "class", label: "Error class", get: (r) => r.error_subclass || "" });
  cols.push({ key: "duration", label: "Duration", get: (r) => r.duration_ms, num: true });
  return cols;
}

function compareValues(a, b) {
  if (a == null && b == null) return 0;
  if (a == null) return 1; // missing values last, whatever the direction
  if (b == null) return -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b), undefined, { numeric: true });
}

function matches(r, words) {
  if (!words.length) return true;
  const hay = (r.id + "\n" + (r.question || "") + "\n" + (r.expected_query || "") + "\n" + (r.generated_query || "")).toLowerCase();
  return words.every((w) => hay.includes(w));
}

async function renderCases(table) {
  state.table = table;
  const q = new URLSearchParams(location.search);
  const filter = FILTERS[q.get("show")] ? q.get("show") : "all";
  $("case-filter").value = filter;
  $("case-filter").querySelector('option[value="flagged"]').hidden = !table.audited;
  classOptions(table, q.get("class") || "");
  $("case-search").value = q.get("q") || "";
  state.sort = q.get("sort") || "";
  state.page = Math.max(1, parseInt(q.get("page") || "1", 10) || 1);
  drawHead(table);
  const target = decodeURIComponent(location.hash.replace(/^#case-/, ""));
  if (location.hash.startsWith("#case-")) await openCase(target);
  else drawRows();
}

// classOptions fills the error-class filter with the main classes the run's rows
// have, each with its count, in the vocabulary's order.
const CLASSES = ["value", "operator", "condition", "function", "attribute", "table", "clause", "subquery", "other"];

function classOptions(table, chosen) {
  const counts = {};
  for (const r of table.rows) if (r.error_class) counts[r.error_class] = (counts[r.error_class] || 0) + 1;
  const names = CLASSES.filter((c) => counts[c]).concat(Object.keys(counts).filter((c) => !CLASSES.includes(c)).sort());
  const all = document.createElement("option");
  all.value = "";
  all.textContent = "Every class";
  $("case-class").replaceChildren(all, ...names.map((c) => {
    const o = document.createElement("option");
    o.value = c;
    o.textContent = c + " (" + counts[c] + ")";
    return o;
  }));
  $("case-class").value = counts[chosen] ? chosen : "";
}

function drawHead(table) {
  const [key, dir] = state.sort.split(":");
  $("case-head").replaceChildren(...columns(table).map((c) => {
    const th = document.createElement("th");
    th.scope = "col";
    if (c.key === key) th.setAttribute("aria-sort", dir === "desc" ? "descending" : "ascending");
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = c.label;
    b.addEventListener("click", () => {
      const next = c.key === key && dir !== "desc" ? c.key + ":desc" : c.key;
      state.sort = next;
      state.page = 1;
      setQuery({ sort: next, page: 1 });
      drawHead(table);
      drawRows();
    });
    th.append(b);
    return th;
  }));
}

// visibleRows applies the filter, the search and the sort.
function visibleRows() {
  const table = state.table;
  const f = FILTERS[$("case-filter").value] || FILTERS.all;
  const cls = $("case-class").value;
  const words = $("case-search").value.toLowerCase().split(/\s+/).filter(Boolean);
  let rows = table.rows.filter((r) => f(r) && (!cls || r.error_class === cls) && matches(r, words));
  const [key, dir] = state.sort.split(":");
  const col = columns(table).find((c) => c.key === key);
  if (col) {
    const sign = dir === "desc" ? -1 : 1;
    rows = rows.map((r, i) => [r, i]).sort((a, b) => {
      const va = col.get(a[0]), vb = col.get(b[0]);
      if (va == null || vb == null) return compareValues(va, vb) || a[1] - b[1];
      return sign * compareValues(va, vb) || a[1] - b[1];
    }).map((x) => x[0]);
  }
  return rows;
}

function drawRows() {
  const table = state.table;
  const rows = visibleRows();
  const pages = Math.max(1, Math.ceil(rows.length / PAGE));
  state.page = Math.min(state.page, pages);
  const from = (state.page - 1) * PAGE;
  const cols = columns(table);
  const out = [];
  for (const r of rows.slice(from, from + PAGE)) out.push(tableRow(r, cols));
  $("case-rows").replaceChildren(...out);
  $("case-count").textContent = rows.length === table.rows.length
    ? rows.length + " cases" : rows.length + " of " + table.rows.length + " cases";
  $("case-page").textContent = "Page " + state.page + " of " + pages;
  $("case-prev").disabled = state.page <= 1;
  $("case-next").disabled = state.page >= pages;
}

function cell(tr, text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  tr.append(td);
  return td;
}

function badge(text, cls) {
  const s = document.createElement("span");
  s.className = "badge " + cls;
  s.textContent = text;
  return s;
}

const FLAG_TEXT = { unsafe_let_through: "unsafe let through", judge_disagrees: "judge ≠ execution", gold_flagged: "gold flagged" };

function tableRow(r, cols) {
  const tr = document.createElement("tr");
  tr.className = "row " + (passed(r) ? "pass" : "fail");
  tr.id = "case-" + r.id;
  tr.dataset.id = r.id;
  const first = cell(tr, "");
  const b = document.createElement("button");
  b.type = "button";
  b.className = "expand";
  b.textContent = r.id;
  b.setAttribute("aria-expanded", "false");
  b.setAttribute("aria-label", "Case " + r.id + (r.question ? ": " + r.question : "") + " — show details");
  b.addEventListener("click", () => toggleCase(tr, r).catch(showError));
  first.append(b);
  for (const f of r.flags || []) {
    const s = document.createElement("span");
    s.className = "flag";
    s.textContent = "⚑ " + (FLAG_TEXT[f] || f);
    first.append(s);
  }
  cell(tr, "").append(badge(r.status, r.status));
  for (const c of cols.slice(2)) {
    const v = c.get(r);
    if (c.key === "outcome" || c.key === "class") cell(tr, v || "—");
    else if (c.key === "duration") cell(tr, v == null ? "" : Math.round(v) + " ms", "num");
    else cell(tr, v == null ? "n/a" : pct(v), "num");
  }
  return tr;
}

async function toggleCase(tr, r, opening) {
  const b = tr.querySelector("button.expand");
  const next = tr.nextElementSibling;
  if (next && next.classList.contains("detail")) {
    if (opening) return;
    next.remove();
    b.setAttribute("aria-expanded", "false");
    history.replaceState(null, "", location.pathname + location.search);
    return;
  }
  const c = await api("/api/runs/" + state.run + "/cases/" + encodeURIComponent(r.id));
  const d = document.createElement("tr");
  d.className = "detail";
  const td = document.createElement("td");
  td.colSpan = tr.children.length;
  td.append(caseDetail(c));
  d.append(td);
  tr.after(d);
  b.setAttribute("aria-expanded", "true");
  history.replaceState(null, "", location.pathname + location.search + "#case-" + encodeURIComponent(r.id));
}

// openCase shows a case named by the URL: on its page, opened, scrolled to.
async function openCase(id) {
  let rows = visibleRows();
  let i = rows.findIndex((r) => r.id === id);
  if (i < 0) {
    // filtered out: show every case rather than lose the link
    $("case-filter").value = "all";
    $("case-class").value = "";
    $("case-search").value = "";
    setQuery({ show: null, q: null, class: null });
    rows = visibleRows();
    i = rows.findIndex((r) => r.id === id);
  }
  if (i < 0) {
    drawRows();
    showError(new Error("run " + state.run + " has no case " + id));
    return;
  }
  state.page = Math.floor(i / PAGE) + 1;
  drawRows();
  const tr = $("case-" + id);
  tr.classList.add("target");
  await toggleCase(tr, rows[i], true);
  tr.scrollIntoView({ block: "start" });
  tr.querySelector("button.expand").focus({ preventScroll: true });
}

function para(parent, text, cls) {
  const p = document.createElement("p");
  p.textContent = text;
  if (cls) p.className = cls;
  parent.append(p);
  return p;
}

function heading(parent, text) {
  const h = document.createElement("h4");
  h.textContent = text;
  parent.append(h);
}

function pre(parent, text) {
  const p = document.createElement("pre");
  p.textContent = text;
  parent.append(p);
}

// resultTable draws the first rows of a result set.
function resultTable(rs) {
  const box = document.createElement("div");
  if (!rs) {
    para(box, "(no result)");
    return box;
  }
  const shown = (rs.rows || []).slice(0, 20);
  const t = document.createElement("table");
  t.className = "result";
  const head = document.createElement("tr");
  for (const c of rs.columns || []) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = c.name;
    head.append(th);
  }
  const thead = document.createElement("thead");
  thead.append(head);
  const body = document.createElement("tbody");
  for (const row of shown) {
    const tr = document.createElement("tr");
    for (const v of row) cell(tr, v == null ? "NULL" : String(v));
    body.append(tr);
  }
  t.append(thead, body);
  const wrap = document.createElement("div");
  wrap.className = "table-wrap";
  wrap.append(t);
  box.append(wrap);
  const n = (rs.rows || []).length;
  para(box, n + (n === 1 ? " row" : " rows") + (n > shown.length ? ", first " + shown.length + " shown" : "") + (rs.truncated ? " (cut at the row cap)" : ""));
  return box;
}

function side(parent, left, leftTitle, right, rightTitle) {
  const s = document.createElement("div");
  s.className = "side";
  for (const [node, title] of [[left, leftTitle], [right, rightTitle]]) {
    const d = document.createElement("div");
    heading(d, title);
    d.append(node);
    s.append(d);
  }
  parent.append(s);
}

function preNode(text) {
  const p = document.createElement("pre");
  p.textContent = text;
  return p;
}

// stateDetail shows what a stateful case compared that differed: checks, tables with
// their rows added, removed and changed, definitions, cost.
function stateDetail(box, st) {
  const lines = [];
  for (const ch of st.checks || []) {
    if (!ch.equal) lines.push("Check " + ch.index + " (" + ch.query + "): " + (ch.error ? "fails after the generated answer: " + ch.error : "results differ"));
  }
  for (const t of st.tables || []) {
    if (t.equal) continue;
    let text = "Table " + t.table + " (gold " + t.gold_rows + " rows, generated " + t.pred_rows + ")";
    if (t.note) text += ": " + t.note;
    else text += ": " + t.added_count + " added, " + t.removed_count + " removed, " + t.changed_count + " changed" + (t.other_order ? ", same rows in another order" : "");
    for (const r of t.added || []) text += "\n  added     " + JSON.stringify(r);
    for (const r of t.removed || []) text += "\n  removed   " + JSON.stringify(r);
    for (const r of t.changed || []) text += "\n  gold      " + JSON.stringify(r.gold) + "\n  generated " + JSON.stringify(r.pred);
    lines.push(text);
  }
  for (const d of st.schema_differences || []) lines.push("Definitions: " + d);
  if (st.cost && !st.cost.within) lines.push("Cost: generated " + st.cost.pred + " " + st.cost.unit + ", gold " + st.cost.gold + " (max ratio " + st.cost.max_ratio + ")");
  if (!lines.length) return;
  heading(box, "State after both answers: what differs");
  pre(box, lines.join("\n"));
}

// caseDetail is the whole case: queries, both results, the differences, the reasons.
function caseDetail(c) {
  const box = document.createElement("div");
  if (c.question) para(box, "Question: " + c.question);
  if (c.tags && c.tags.length) para(box, "Tags: " + c.tags.join(", "));
  const golds = c.expected_queries || [];
  const g = goldText(c.matched_gold, golds.length);
  side(box, preNode(c.expected_query || "(none)"), "Gold query" + (g ? " — " + g.toLowerCase() : ""),
    preNode(c.generated_query || "(no generated query)"), "Generated query");
  if (golds.length > 1) {
    const d = document.createElement("details");
    d.className = "golds";
    const s = document.createElement("summary");
    s.textContent = "All " + golds.length + " golds";
    const ol = document.createElement("ol");
    for (const q of golds) {
      const li = document.createElement("li");
      li.append(preNode(q));
      ol.append(li);
    }
    d.append(s, ol);
    box.append(d);
  }
  para(box, executionLine(c).text, "exec");
  para(box, scoreLine(c), "score");
  para(box, componentLine(c), "components");
  const v = c.execution;
  if (v && (v.gold_result || v.pred_result)) {
    side(box, resultTable(v.gold_result), "Gold result" + (v.database ? " (" + v.database + ")" : ""), resultTable(v.pred_result), "Generated result");
  }
  if (v && v.state) stateDetail(box, v.state);
  const rm = c.metrics && c.metrics.results_match && c.metrics.results_match.details;
  if (rm && ((rm.missing_rows && rm.missing_rows.length) || (rm.extra_rows && rm.extra_rows.length))) {
    heading(box, "Differences");
    if (rm.missing_rows && rm.missing_rows.length) {
      para(box, "Rows the generated query misses:");
      pre(box, rm.missing_rows.map((r) => JSON.stringify(r)).join("\n"));
    }
    if (rm.extra_rows && rm.extra_rows.length) {
      para(box, "Rows only the generated query returns:");
      pre(box, rm.extra_rows.map((r) => JSON.stringify(r)).join("\n"));
    }
  }
  if (c.reason) para(box, "Why: " + c.reason, "why");
  for (const ec of c.error_class || []) {
    let t = "Error class " + ec.subclass;
    if (ec.expected || ec.generated) t += ": expected " + (ec.expected || "nothing") + ", generated " + (ec.generated || "nothing");
    if (ec.reason) t += " (" + ec.reason + ")";
    para(box, t, "why error-class");
  }
  const r = reasoning(c);
  if (r) para(box, "LLM reasoning: " + r, "why");
  const a = document.createElement("a");
  a.href = "/runs/" + state.run + "#case-" + encodeURIComponent(c.id);
  a.textContent = "Link to this case";
  box.append(a);
  return box;
}

// ---- compare two runs ---------------------------------------------------------------

const CHANGE_TEXT = { fixed: "fixed", broken: "broken", still_passing: "still passing", still_failing: "still failing",
  only_base: "only in base", only_head: "only in head" };

const points = (x) => (x >= 0 ? "+" : "−") + (Math.round(Math.abs(x) * 1000) / 10).toFixed(1) + " pp";

async function showCompare(base, head) {
  if (state.source) state.source.close();
  state.source = null;
  for (const id of ["run", "summary"]) $(id).hidden = true;
  if (!base || !head) throw new Error("name two runs: /compare?base={id}&head={id}");
  const c = await api("/api/compare?base=" + encodeURIComponent(base) + "&head=" + encodeURIComponent(head));
  state.compare = c;
  const d = c.diff;
  $("compare-title").textContent = "Compare " + c.base.id.slice(0, 8) + " (" + c.base.suite + ") → " + c.head.id.slice(0, 8) + " (" + c.head.suite + ")";
  $("compare-counts").textContent = d.fixed.length + " fixed, " + d.broken.length + " broken, " + d.still_failing +
    " still failing, " + d.still_passing + " still passing, of " + d.paired + " cases in both runs" +
    (d.only_in_base.length + d.only_in_head.length ? " (" + d.only_in_base.length + " only in base, " + d.only_in_head.length + " only in head)" : "") + ".";
  const measures = [["Pass rate", d.pass_rate], ["Execution accuracy", d.execution_accuracy], ["Mean score", d.mean_score]];
  for (const cd of d.components || []) measures.push([label(cd.name), cd]);
  $("compare-measures").replaceChildren(...measures.filter(([, m]) => m).map(([name, m]) => {
    const tr = document.createElement("tr");
    const th = document.createElement("th");
    th.scope = "row";
    th.textContent = name;
    tr.append(th);
    cell(tr, pct(m.base), "num");
    cell(tr, pct(m.head), "num");
    cell(tr, points(m.delta), "num");
    cell(tr, "[" + points(m.low) + ", " + points(m.high) + "]");
    cell(tr, String(m.n), "num");
    return tr;
  }));
  $("compare-classes").replaceChildren(...(d.error_classes || []).map((ec) => {
    const tr = document.createElement("tr");
    const th = document.createElement("th");
    th.scope = "row";
    th.textContent = ec.class;
    tr.append(th);
    for (const n of [ec.base, ec.head, ec.fixed, ec.broken]) cell(tr, String(n), "num");
    return tr;
  }));
  $("compare-classes-wrap").hidden = !(d.error_classes || []).length;
  const mc = d.mcnemar || {};
  $("compare-mcnemar").textContent = "McNemar's test on the " + (d.broken.length + d.fixed.length) + " changed cases: p = " +
    (mc.p == null ? "n/a" : mc.p < 0.001 ? "< 0.001" : (Math.round(mc.p * 1000) / 1000).toString()) +
    (d.regression ? ". Regression: " + (d.regression_reasons || []).join("; ") : ". No regression.");
  $("compare-warnings").replaceChildren(...(d.warnings || []).map((w) => {
    const li = document.createElement("li");
    li.textContent = w;
    return li;
  }));
  const q = new URLSearchParams(location.search);
  $("compare-filter").value = q.get("show") || "all";
  $("compare-search").value = q.get("q") || "";
  state.comparePage = Math.max(1, parseInt(q.get("page") || "1", 10) || 1);
  drawCompare();
  $("compare").hidden = false;
}

const CHANGE_FILTERS = {
  all: () => true,
  fixed: (p) => p.change === "fixed",
  broken: (p) => p.change === "broken",
  still_failing: (p) => p.change === "still_failing",
  still_passing: (p) => p.change === "still_passing",
  changed: (p) => p.delta != null && Math.abs(p.delta) > 1e-9,
  only: (p) => p.change === "only_base" || p.change === "only_head",
};

function drawCompare() {
  const c = state.compare;
  const f = CHANGE_FILTERS[$("compare-filter").value] || CHANGE_FILTERS.all;
  const words = $("compare-search").value.toLowerCase().split(/\s+/).filter(Boolean);
  const rows = c.cases.filter((p) => f(p) && matches(Object.assign({}, p.head || p.base, {
    generated_query: ((p.base && p.base.generated_query) || "") + "\n" + ((p.head && p.head.generated_query) || "") }), words));
  const pages = Math.max(1, Math.ceil(rows.length / PAGE));
  state.comparePage = Math.min(state.comparePage, pages);
  const from = (state.comparePage - 1) * PAGE;
  $("compare-rows").replaceChildren(...rows.slice(from, from + PAGE).map(compareRow));
  $("compare-count").textContent = rows.length === c.cases.length ? rows.length + " cases" : rows.length + " of " + c.cases.length + " cases";
  $("compare-page").textContent = "Page " + state.comparePage + " of " + pages;
  $("compare-prev").disabled = state.comparePage <= 1;
  $("compare-next").disabled = state.comparePage >= pages;
}

function sideText(r) {
  if (!r) return "—";
  return r.status + (r.score == null ? "" : " " + pct(r.score));
}

function compareRow(p) {
  const tr = document.createElement("tr");
  tr.className = "row " + (p.change === "broken" || p.change === "still_failing" ? "fail" : "pass");
  tr.dataset.change = p.change;
  const first = cell(tr, "");
  const b = document.createElement("button");
  b.type = "button";
  b.className = "expand";
  b.textContent = p.id;
  b.setAttribute("aria-expanded", "false");
  b.setAttribute("aria-label", "Case " + p.id + " in both runs — show side by side");
  b.addEventListener("click", () => {
    const next = tr.nextElementSibling;
    if (next && next.classList.contains("detail")) {
      next.remove();
      b.setAttribute("aria-expanded", "false");
      return;
    }
    const d = document.createElement("tr");
    d.className = "detail";
    const td = document.createElement("td");
    td.colSpan = 5;
    const box = document.createElement("div");
    const r = p.head || p.base;
    if (r.question) para(box, "Question: " + r.question);
    para(box, "Gold query:");
    pre(box, r.expected_query || "(none)");
    const one = (x, run) => {
      const div = document.createElement("div");
      if (!x) {
        para(div, "(not in this run)");
        return div;
      }
      pre(div, x.generated_query || "(no generated query)");
      para(div, sideText(x) + (x.outcome ? " — execution " + x.outcome : ""));
      const g = goldText(x.matched_gold, x.golds);
      if (g) para(div, g, "gold");
      if (x.reason) para(div, "Why: " + x.reason, "why");
      const a = document.createElement("a");
      a.href = "/runs/" + run + "#case-" + encodeURIComponent(x.id);
      a.textContent = "Open in its run";
      div.append(a);
      return div;
    };
    side(box, one(p.base, state.compare.base.id), "Base", one(p.head, state.compare.head.id), "Head");
    td.append(box);
    d.append(td);
    tr.after(d);
    b.setAttribute("aria-expanded", "true");
  });
  first.append(b);
  cell(tr, "").append(badge(CHANGE_TEXT[p.change] || p.change, p.change));
  cell(tr, sideText(p.base));
  cell(tr, sideText(p.head));
  cell(tr, p.delta == null ? "" : points(p.delta), "num");
  return tr;
}

// Downloads need the token when there is one: fetch, then save the blob.
async function download(e) {
  if (!state.token) return;
  e.preventDefault();
  const a = e.currentTarget;
  const resp = await fetch(a.href, { headers: { Authorization: "Bearer " + state.token } });
  if (!resp.ok) throw new APIError(resp.status, await resp.json().catch(() => null));
  const name = (resp.headers.get("Content-Disposition") || "").match(/filename="([^"]+)"/);
  const url = URL.createObjectURL(await resp.blob());
  const tmp = document.createElement("a");
  tmp.href = url;
  tmp.download = name ? name[1] : "report";
  document.body.append(tmp);
  tmp.click();
  tmp.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// ---- history and suites -------------------------------------------------------------

async function loadRuns() {
  const body = await api("/api/runs");
  const rows = body.runs.map((r) => {
    const tr = document.createElement("tr");
    tr.dataset.run = r.id;
    cell(tr, new Date(r.started).toLocaleString());
    cell(tr, r.suite);
    cell(tr, r.status);
    cell(tr, r.done + " / " + r.total);
    cell(tr, pct(r.pass_rate));
    const a = document.createElement("a");
    a.href = "/runs/" + r.id;
    a.textContent = "Open";
    a.setAttribute("aria-label", "Open run " + r.id + " of " + r.suite);
    a.addEventListener("click", (e) => {
      if (e.ctrlKey || e.metaKey || e.shiftKey) return; // a new tab: the link works cold
      e.preventDefault();
      go(a.getAttribute("href")).then(() => $(r.status === "running" ? "run" : "summary").scrollIntoView()).catch(showError);
    });
    cell(tr, "").append(a);
    return tr;
  });
  $("runs").replaceChildren(...rows);
  followPastRow();
  // the compare form offers the ended runs: base defaults to the older, head to the newest
  const ended = body.runs.filter((r) => r.status !== "running");
  for (const [id, pick] of [["compare-head", 0], ["compare-base", 1]]) {
    const sel = $(id);
    const keep = sel.value;
    sel.replaceChildren(...ended.map((r) => {
      const o = document.createElement("option");
      o.value = r.id;
      o.textContent = r.suite + " — " + new Date(r.started).toLocaleString() + " — " + pct(r.pass_rate);
      return o;
    }));
    if (keep && ended.some((r) => r.id === keep)) sel.value = keep;
    else if (ended.length > pick) sel.value = ended[pick].id;
  }
  $("compare-form").hidden = ended.length < 2;
}

async function loadSuites() {
  const body = await api("/api/suites");
  const sel = $("suite-select");
  sel.replaceChildren(sel.options[0]);
  for (const s of body.suites) {
    const o = document.createElement("option");
    o.value = s.name;
    o.textContent = s.name + (s.error ? " (cannot load)" : " — " + s.cases + " cases");
    sel.append(o);
  }
  if (body.suites.length > 0) sel.value = body.suites[0].name;
}

async function start(e) {
  e.preventDefault();
  clearError();
  const file = $("suite-file").files[0];
  const name = $("suite-select").value;
  let run;
  if (file) {
    const form = new FormData();
    form.append("suite", file, file.name);
    run = await api("/api/runs", { method: "POST", body: form });
  } else if (name) {
    run = await api("/api/runs", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ suite: name }) });
  } else {
    throw new Error("choose a suite, or upload a suite file");
  }
  $("suite-file").value = "";
  history.pushState(null, "", "/runs/" + run.id);
  follow(run);
  loadRuns().catch(showError);
}

async function cancel() {
  if (!state.run) return;
  clearError();
  await api("/api/runs/" + state.run + "/cancel", { method: "POST" });
  $("cancel").disabled = true;
}

async function init() {
  $("start-form").addEventListener("submit", (e) => start(e).catch(showError));
  $("cancel").addEventListener("click", () => cancel().catch(showError));
  for (const id of ["download-json", "download-xlsx"]) {
    $(id).addEventListener("click", (e) => download(e).catch(showError));
  }
  $("run-link").addEventListener("click", (e) => {
    e.preventDefault();
    go($("run-link").getAttribute("href")).catch(showError);
  });
  // the case table: filter, search, pages
  $("case-filter").addEventListener("change", () => {
    state.page = 1;
    setQuery({ show: $("case-filter").value, page: 1 });
    drawRows();
  });
  $("case-class").addEventListener("change", () => {
    state.page = 1;
    setQuery({ class: $("case-class").value, page: 1 });
    drawRows();
  });
  let typing;
  $("case-search").addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => {
      state.page = 1;
      setQuery({ q: $("case-search").value.trim(), page: 1 });
      drawRows();
    }, 120);
  });
  for (const [id, step] of [["case-prev", -1], ["case-next", 1]]) {
    $(id).addEventListener("click", () => {
      state.page += step;
      setQuery({ page: state.page });
      drawRows();
    });
  }
  // the comparison
  $("compare-form").addEventListener("submit", (e) => {
    e.preventDefault();
    go("/compare?base=" + $("compare-base").value + "&head=" + $("compare-head").value)
      .then(() => $("compare").scrollIntoView()).catch(showError);
  });
  $("compare-filter").addEventListener("change", () => {
    state.comparePage = 1;
    setQuery({ show: $("compare-filter").value, page: 1 });
    drawCompare();
  });
  $("compare-search").addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => {
      state.comparePage = 1;
      setQuery({ q: $("compare-search").value.trim(), page: 1 });
      drawCompare();
    }, 120);
  });
  for (const [id, step] of [["compare-prev", -1], ["compare-next", 1]]) {
    $(id).addEventListener("click", () => {
      state.comparePage += step;
      setQuery({ page: state.comparePage });
      drawCompare();
    });
  }
  window.addEventListener("popstate", () => route().catch(showError));
  $("token-form").addEventListener("submit", (e) => {
    e.preventDefault();
    state.token = $("token").value.trim();
    sessionStorage.setItem("qeval-token", state.token);
    $("token-form").hidden = true;
    clearError();
    init2().catch(showError);
  });
  await init2();
}

async function init2() {
  if (!state.token) {
    const health = await fetch("/api/health").then((r) => r.json());
    if (health.token_required) {
      askToken();
      return;
    }
  }
  await Promise.all([loadSuites(), loadRuns(), route()]);
}

document.addEventListener("DOMContentLoaded", () => {
  init().catch((err) => {
    if (err.status !== 401) showError(err);
  });
});
