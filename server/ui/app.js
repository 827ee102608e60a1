// The qeval page: start a run, follow it case by case through server-sent events,
// then show its summary. It calls the same JSON API as any other client.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { token: sessionStorage.getItem("qeval-token") || "", run: null, source: null, threshold: 0.9 };

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

function componentLine(c) {
  const m = c.metrics || {};
  return COMPONENTS.map(([key, label]) => {
    const r = m[key];
    let v = "n/a";
    if (r) v = r.skipped != null ? "skipped" : pct(r.score);
    return label + ": " + v;
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

function passed(c) {
  return c.status === "PASS";
}

function scoreLine(c) {
  const t = pct(state.threshold);
  if (c.total_score == null) return "Score: n/a (" + c.status + ")";
  return "Score: " + pct(c.total_score) + " (" + (passed(c) ? "PASS ≥" + t : c.status + " <" + t) + ")";
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
  add(scoreLine(c), "score");
  add(componentLine(c), "components");
  if (full && !passed(c)) {
    if (c.reason) add("Why: " + c.reason, "why");
    const r = reasoning(c);
    if (r) add("LLM reasoning: " + r, "why");
  }
  return li;
}

// ---- live run -----------------------------------------------------------------------

function setProgress(p) {
  const bar = $("progress");
  bar.max = Math.max(p.total, 1);
  bar.value = p.done;
  $("progress-text").textContent = p.done + " of " + p.total + " cases — " + p.passed + " passed, " +
    p.failed + " failed, " + p.errors + " errors" + (p.unscorable ? ", " + p.unscorable + " unscorable" : "");
  $("run-status").textContent = "Status: " + p.status;
  $("cancel").disabled = p.status !== "running";
}

function follow(run) {
  if (state.source) state.source.close();
  state.run = run.id;
  state.threshold = run.threshold;
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
    $("live").append(caseItem(ev.case, false));
  });
  es.addEventListener("progress", (e) => setProgress(JSON.parse(e.data)));
  es.addEventListener("summary", (e) => {
    es.close();
    state.source = null;
    const v = JSON.parse(e.data);
    setProgress(Object.assign({}, v, { total: v.total }));
    showRun(v.id).catch(showError);
    loadRuns().catch(showError);
  });
  es.onerror = () => {
    if (es.readyState === EventSource.CLOSED) showError(new Error("the event stream closed; reload the run from Past runs"));
  };
}

// ---- summary ------------------------------------------------------------------------

async function showRun(id) {
  const v = await api("/api/runs/" + id);
  if (v.status === "running") {
    follow(v);
    return;
  }
  state.run = v.id;
  state.threshold = v.threshold;
  $("run").hidden = false;
  $("run-title").textContent = "Run " + v.id + " — " + v.suite;
  setProgress(Object.assign({}, v));
  if ($("live").children.length === 0 || $("live").dataset.run !== v.id) {
    $("live").replaceChildren(...(v.cases || []).map((c) => caseItem(c, false)));
  }
  $("live").dataset.run = v.id;
  renderSummary(v);
}

function renderSummary(v) {
  $("summary-title").textContent = "Summary of run " + v.id + " — " + v.suite;
  const cases = v.cases || [];
  const ok = cases.filter(passed);
  // an unscorable case (its gold query uses what the engine does not support) is
  // neither a pass nor a failure: it is listed with the failures and left out of the rate
  const unscorable = cases.filter((c) => c.status === "UNSCORABLE");
  const bad = cases.filter((c) => !passed(c));
  $("success-count").textContent = ok.length;
  $("error-count").textContent = bad.length;
  $("success-list").replaceChildren(...ok.map((c) => caseItem(c, true)));
  $("error-list").replaceChildren(...bad.map((c) => caseItem(c, true)));
  const scorable = cases.length - unscorable.length;
  let text = ok.length + " passed, " + (bad.length - unscorable.length) + " failed or errored, of " + cases.length + " cases";
  if (unscorable.length) text += " (" + unscorable.length + " unscorable: the engine does not support their gold query)";
  text += ". Pass rate " + pct(scorable ? ok.length / scorable : 0) + ". Threshold " + pct(v.threshold) + ".";
  if (v.summary && v.summary.mean_score != null) text += " Mean score " + pct(v.summary.mean_score) + ".";
  if (v.status !== "finished") text += " The run " + v.status + (v.error ? ": " + v.error : "") + ".";
  $("summary-counts").textContent = text;
  for (const [id, file] of [["download-json", "report.json"], ["download-xlsx", "report.xlsx"]]) {
    $(id).href = "/api/runs/" + v.id + "/" + file;
    $(id).setAttribute("download", "");
  }
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
    const cell = (t) => {
      const td = document.createElement("td");
      td.textContent = t;
      tr.append(td);
    };
    cell(new Date(r.started).toLocaleString());
    cell(r.suite);
    cell(r.status);
    cell(r.done + " / " + r.total);
    cell(pct(r.pass_rate));
    const td = document.createElement("td");
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = "Open";
    b.setAttribute("aria-label", "Open run " + r.id + " of " + r.suite);
    b.addEventListener("click", () => {
      clearError();
      showRun(r.id).then(() => $("run").scrollIntoView()).catch(showError);
    });
    td.append(b);
    tr.append(td);
    return tr;
  });
  $("runs").replaceChildren(...rows);
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
  await loadSuites();
  await loadRuns();
}

document.addEventListener("DOMContentLoaded", () => {
  init().catch((err) => {
    if (err.status !== 401) showError(err);
  });
});
