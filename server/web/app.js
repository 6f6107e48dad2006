// The page of raymond serve: workflows, runs, questions and one run's
// detail, kept live through the daemon's event streams. No framework and no
// build step. Text from the server is only ever set with textContent.
import { el, show, usd, clock, when, zoneLabel, basename, statusChip, tick, reconcile } from "./dom.js";
import { follow } from "./sse.js";
import { describe } from "./timeline.js";
import { renderDraft, wireDraft } from "./draft.js";

const TOKEN_KEY = "raymond.token";
const API = "/api/v1";
const FINISHED = new Set(["completed", "failed", "budget_exceeded"]);
const RESUMABLE = new Set(["paused", "failed", "budget_exceeded"]);
const MAX_TIMELINE = 500;
const ACTIVE = new Set(["running", "asking", "waiting"]); // agents that have a current activity
const RUNS_PER_PAGE = 25;

const $ = (id) => document.getElementById(id);

let token = null;
let session = null; // AbortController of everything the signed-in page runs
let view = null; // AbortController of the run detail's stream

const model = {
  daemon: null,
  workflows: [],
  schedules: [],
  runs: new Map(),
  asks: [],
  run: null, // the RunDetail shown
  runID: "",
  activity: new Map(), // agent -> what it does now (run detail)
};

// ---- token ------------------------------------------------------------

// takeToken moves a #token=… of the address into localStorage, out of the
// address bar (and so out of the history and of screenshots), and reads the
// token kept from before. The rest of the hash stays, so a link such as
// #token=T&/runs/ID opens that run.
function takeToken() {
  const parts = location.hash.replace(/^#/, "").split("&");
  const i = parts.findIndex((p) => p.startsWith("token="));
  if (i >= 0) {
    token = decodeURIComponent(parts[i].slice("token=".length));
    parts.splice(i, 1);
    const rest = parts.filter((p) => p !== "").join("&");
    history.replaceState(null, "", location.pathname + location.search + (rest ? "#" + rest : ""));
  }
  try {
    if (token) localStorage.setItem(TOKEN_KEY, token);
    else token = localStorage.getItem(TOKEN_KEY);
  } catch (e) {
    // storage refused (private mode): the token lives as long as the page
  }
}

// signOut forgets the token, stops every request and shows the sign-in
// form with message.
function signOut(message) {
  try {
    localStorage.removeItem(TOKEN_KEY);
  } catch (e) {
    // private mode: nothing stored
  }
  token = null;
  stop();
  $("login-message").textContent = message || "";
  show($("login"), true);
  show($("home"), false);
  show($("run"), false);
  show($("steps"), false);
  show($("spend"), false);
  show($("connection"), false);
  show($("limit-banner"), false);
  show($("held-banner"), false);
  $("login-token").focus();
}

// ---- API ------------------------------------------------------------

class APIError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const UNAUTHORIZED =
  "The daemon refused the token (it changes when serve.token is recreated). Paste the one in .raymond/serve.token.";

// api calls the daemon's API and returns the JSON it answers (null for
// 204); an error answer throws an APIError with the daemon's message.
async function api(method, path, body, signal) {
  const headers = { Authorization: "Bearer " + token };
  const opts = { method, headers, signal, cache: "no-store" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(API + path, opts);
  } catch (err) {
    if (err.name === "AbortError") throw err;
    throw new APIError(0, "unreachable", "The daemon did not answer: is raymond serve still running?");
  }
  if (res.status === 401) {
    signOut(UNAUTHORIZED);
    throw new APIError(401, "unauthorized", UNAUTHORIZED);
  }
  if (!res.ok) {
    let code = "";
    let message = "the daemon answered " + res.status + " " + res.statusText;
    try {
      const j = await res.json();
      if (j && j.error) {
        code = j.error.code || "";
        message = j.error.message || message;
      }
    } catch (e) {
      // not the JSON error shape: keep the status line
    }
    throw new APIError(res.status, code, message);
  }
  if (res.status === 204) return null;
  return res.json();
}

// stream follows the daemon's event stream at path with the token: a
// refused token asks for another, a run that is gone ends its stream.
function stream(path, signal, opts) {
  return follow(
    API + path,
    Object.assign(
      {
        signal,
        headers: () => ({ Authorization: "Bearer " + token }),
        refused: (status) => {
          if (status === 401) signOut(UNAUTHORIZED);
          return status === 401 || status === 404;
        },
      },
      opts,
    ),
  );
}

// notify shows an error of a background request; aborted requests and a
// refused token (the sign-in form says it) are not worth a banner.
function notify(err) {
  if (!err || err.name === "AbortError" || (err instanceof APIError && err.status === 401)) return;
  $("notice").textContent = err.message;
  show($("notice"), true);
}

// ---- header -------------------------------------------------------------

function renderDaemon() {
  const d = model.daemon;
  if (!d) return;
  $("project").textContent = basename(d.project);
  $("project").title = d.project;
  $("steps").textContent = "steps " + d.steps_running + " / " + d.max_steps;
  show($("steps"), true);
  let spend = usd(d.spend_today_usd) + " today";
  if (d.daily_cap_usd > 0) spend += " of " + usd(d.daily_cap_usd);
  $("spend").textContent = spend;
  show($("spend"), true);
  const limited = d.usage_limit_until && Date.parse(d.usage_limit_until) > Date.now();
  if (limited) {
    $("limit-until").textContent = when(d.usage_limit_until);
    $("limit-until").dateTime = d.usage_limit_until;
    $("limit-left").dataset.until = d.usage_limit_until;
  }
  show($("limit-banner"), limited);
  // held_until is also set by a usage limit alone: the cap's banner shows
  // only when the day's spend has reached the cap.
  const capped = !!d.held_until && d.daily_cap_usd > 0 && d.spend_today_usd >= d.daily_cap_usd;
  if (capped) {
    $("held-until").textContent = when(d.held_until);
    $("held-until").dateTime = d.held_until;
  }
  show($("held-banner"), capped);
  tick();
}

// ---- schedules --------------------------------------------------------

// renderSchedules shows the daemon's schedules, the section only when it
// has some: each with its next fire times, its last run, what it skipped,
// or why it cannot fire.
function renderSchedules() {
  const list = model.schedules;
  show($("schedules-section"), list.length > 0);
  reconcile($("schedules"), list, (s) => s.name, (s) => JSON.stringify(s), scheduleRow);
}

function scheduleRow(s) {
  const source = s.source === "manifest" ? "the workflow's manifest" : "[[serve.schedule]]";
  const next = el("td", { class: "schedule-next" });
  if (s.error) {
    next.append(el("span", { class: "error-text", text: "Does not fire: " + s.error }));
  } else {
    (s.next || []).forEach((t, i) => {
      if (i > 0) next.append(el("br"));
      next.append(el("time", { dateTime: t, text: when(t) }));
    });
  }
  const last = el("td", { class: "schedule-last" });
  if (s.last_run_id) {
    last.append(el("a", { href: "#/runs/" + encodeURIComponent(s.last_run_id), text: s.last_run_id }));
    if (s.last_fire) last.append(el("div", { class: "muted", text: when(s.last_fire) }));
  } else last.append(el("span", { class: "muted", text: "none yet" }));
  const skipped = el("td", { class: "schedule-skipped", text: String(s.skipped || 0) });
  if (s.last_skip) skipped.append(el("div", { class: "muted", text: "last: " + s.last_skip.reason }));
  return el(
    "tr",
    { "data-schedule": s.name },
    el("td", {}, el("span", { text: s.name }), el("div", { class: "muted", text: "from " + source })),
    el("td", {}, el("code", { text: s.workflow })),
    el(
      "td",
      {},
      el("code", { text: s.cron }),
      el("div", { class: "muted", text: s.timezone + " · missed: " + s.missed + " · overlap: " + s.overlap }),
    ),
    next,
    last,
    skipped,
  );
}

// ---- workflows --------------------------------------------------------

function renderWorkflows() {
  const list = model.workflows.slice().sort((a, b) => a.id.localeCompare(b.id));
  show($("workflows-empty"), list.length === 0);
  reconcile($("workflows"), list, (w) => w.id, (w) => JSON.stringify(w), workflowCard);
}

function workflowCard(w) {
  const card = el(
    "article",
    { class: "card workflow" + (w.usable ? "" : " broken") },
    el("h3", {}, el("span", { text: w.name || w.id }), " ", el("code", { class: "muted", text: w.id })),
    w.description ? el("p", { text: w.description }) : null,
  );
  if (!w.usable) {
    card.append(el("p", { class: "error-text", text: "This workflow has errors and cannot be launched:" }));
    const ul = el("ul", { class: "findings" });
    for (const f of w.errors || []) {
      const where = basename(f.file) + (f.line ? ":" + f.line : "");
      ul.append(el("li", {}, el("code", { text: where }), " " + f.message, f.fix ? el("div", { class: "muted", text: f.fix }) : null));
    }
    card.append(ul);
    return card;
  }
  card.append(launchForm(w));
  return card;
}

let formSeq = 0;

function launchForm(w) {
  const n = ++formSeq;
  const msg = el("p", { class: "error-text", role: "alert" });
  const form = el("form", { class: "launch" });
  const input = w.input || { mode: "none" };
  let text = null;
  if (input.mode === "required" || input.mode === "optional") {
    const label = (input.label || "Input") + (input.mode === "optional" ? " (optional)" : "");
    text = el("textarea", { id: "in-" + n, name: "input", rows: 3, required: input.mode === "required" });
    form.append(el("label", { for: "in-" + n, text: label }));
    if (input.description) {
      form.append(el("p", { id: "in-" + n + "-d", class: "muted hint", text: input.description }));
      text.setAttribute("aria-describedby", "in-" + n + "-d");
    }
    form.append(text);
  }
  const budget = el("input", {
    id: "budget-" + n,
    name: "budget",
    type: "number",
    min: "0",
    step: "0.01",
    inputmode: "decimal",
    placeholder: w.default_budget > 0 ? "default " + usd(w.default_budget) : "none",
  });
  const modelIn = el("input", { id: "model-" + n, name: "model", type: "text", placeholder: "default", spellcheck: "false" });
  const button = el("button", { type: "submit", text: "Launch" });
  form.append(
    el(
      "div",
      { class: "row" },
      el("span", {}, el("label", { for: "budget-" + n, text: "Budget (USD, optional)" }), budget),
      el("span", {}, el("label", { for: "model-" + n, text: "Model (optional)" }), modelIn),
      button,
    ),
    msg,
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    msg.textContent = "";
    const body = {
      workflow: w.id,
      input: text && text.value !== "" ? text.value : null,
      budget: budget.value !== "" ? Number(budget.value) : null,
      model: modelIn.value.trim() !== "" ? modelIn.value.trim() : null,
    };
    button.disabled = true;
    try {
      const run = await api("POST", "/runs", body);
      form.reset();
      form.closest("details").open = false;
      location.hash = "#/runs/" + encodeURIComponent(run.run_id);
    } catch (err) {
      msg.textContent = err.message;
    } finally {
      button.disabled = false;
    }
  });
  return el("details", { class: "launch-box" }, el("summary", { text: "Launch…" }), form);
}

// ---- runs -----------------------------------------------------------

// runsPage is the page of the runs table shown, 0 the newest runs.
let runsPage = 0;

function renderRuns() {
  const filter = $("runs-filter").value;
  const search = $("runs-search").value.trim().toLowerCase();
  const all = Array.from(model.runs.values());
  const matched = all
    .filter((r) => !filter || rowStatus(r) === filter)
    .filter((r) => !search || r.run_id.toLowerCase().includes(search) || String(r.workflow || "").toLowerCase().includes(search))
    .sort((a, b) => (Date.parse(b.created_at) || 0) - (Date.parse(a.created_at) || 0));
  const pages = Math.max(1, Math.ceil(matched.length / RUNS_PER_PAGE));
  runsPage = Math.min(runsPage, pages - 1);
  const first = runsPage * RUNS_PER_PAGE;
  const rows = matched.slice(first, first + RUNS_PER_PAGE);
  // Rows are kept by run, so a link being focused survives updates.
  reconcile($("runs"), rows, (r) => r.run_id, (r) => JSON.stringify(r), runRow);
  show($("runs-empty"), rows.length === 0);
  let empty = "No run yet.";
  if (all.length > 0 && search) empty = "No run matches \u201c" + $("runs-search").value.trim() + "\u201d" + (filter ? " among the " + filter + " runs." : ".");
  else if (all.length > 0) empty = "No run is " + filter + ".";
  $("runs-empty").textContent = empty;
  show($("runs-pager"), pages > 1);
  $("runs-page").textContent = matched.length ? first + 1 + "\u2013" + (first + rows.length) + " of " + matched.length : "";
  $("runs-newer").disabled = runsPage === 0;
  $("runs-older").disabled = runsPage >= pages - 1;
  tick();
}

// rowStatus is the status a runs table row shows: a run that goes on
// only once its asks are answered is "asking", though the daemon, which
// keeps driving it, still calls it running (as raymond list does).
function rowStatus(r) {
  if (r.status === "running" && r.agents_asking > 0 && r.agents_running === 0) return "asking";
  return r.status;
}

// detailStatus is the status the run's page shows: "asking" as in
// rowStatus, told from its agents.
function detailStatus(r) {
  const agents = r.agents || [];
  const busy = agents.some((a) => a.status === "running" || a.status === "ready");
  if (r.status === "running" && !busy && agents.some((a) => a.status === "asking")) return "asking";
  return r.status;
}

function runRow(r) {
  let cost = usd(r.total_cost_usd);
  if (r.budget_usd > 0) cost += " / " + usd(r.budget_usd);
  return el(
    "tr",
    { "data-run": r.run_id },
    el("td", {}, el("a", { href: "#/runs/" + encodeURIComponent(r.run_id), text: r.run_id })),
    el("td", { text: r.workflow }),
    el(
      "td",
      {},
      statusChip(rowStatus(r)),
      r.interrupted ? el("span", { class: "muted", text: " interrupted" }) : null,
      r.pending_asks ? el("span", { class: "muted", text: " " + r.pending_asks + (r.pending_asks === 1 ? " question" : " questions") }) : null,
    ),
    el("td", { class: "num", text: r.agents_active + " / " + r.agents_total }),
    el("td", { class: "num", text: cost }),
    el("td", { class: "num", "data-since": r.created_at, title: when(r.created_at) }),
  );
}

async function loadRuns(signal) {
  const j = await api("GET", "/runs", undefined, signal);
  model.runs = new Map((j.runs || []).map((r) => [r.run_id, r]));
  renderRuns();
}

// ---- asks --------------------------------------------------------------

function askKey(a) {
  return a.run_id + "/" + a.ask_id;
}

function renderAsks() {
  const asks = model.asks;
  show($("asks-empty"), asks.length === 0);
  reconcile($("asks"), asks, askKey, (a) => JSON.stringify(a), (a) => askCard(a, true));
  const mine = asks.filter((a) => a.run_id === model.runID);
  show($("run-asks-box"), mine.length > 0);
  reconcile($("run-asks"), mine, askKey, (a) => JSON.stringify(a), (a) => askCard(a, false));
  tick();
}

let askSeq = 0;

function askCard(a, withRun) {
  const n = ++askSeq;
  const msg = el("p", { role: "status" });
  const answer = el("textarea", { id: "answer-" + n, rows: 3, required: true });
  const button = el("button", { type: "submit", text: "Answer" });
  const deadline = a.deadline
    ? el("p", { class: "muted" }, "Answer within ", el("strong", { "data-until": a.deadline }), " (then " + (a.timeout_next || "the timeout state") + ", at " + when(a.deadline) + ").")
    : el("p", { class: "muted", text: "No deadline." });
  const form = el("form", {}, el("label", { for: "answer-" + n, text: "Your answer" }), answer, el("div", { class: "row" }, button), msg);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    msg.textContent = "";
    msg.className = "";
    button.disabled = true;
    try {
      await api("POST", "/runs/" + encodeURIComponent(a.run_id) + "/asks/" + encodeURIComponent(a.ask_id), { answer: answer.value });
      msg.textContent = "Answered.";
      answer.disabled = true;
      return;
    } catch (err) {
      msg.className = "error-text";
      msg.textContent = err.status === 409 ? "This question expired or was already answered." : err.message;
    }
    button.disabled = false;
  });
  return el(
    "article",
    { class: "card ask" },
    el(
      "p",
      { class: "ask-head" },
      withRun ? el("a", { href: "#/runs/" + encodeURIComponent(a.run_id), text: a.run_id }) : null,
      withRun ? " · " : null,
      "agent ",
      el("strong", { text: a.agent_id }),
      " in ",
      el("code", { text: a.state }),
    ),
    el("pre", { class: "question", text: a.prompt }),
    deadline,
    form,
  );
}

// ---- run detail -----------------------------------------------------------

// reportStatus is the run's status when its report was last loaded.
let reportStatus = "";

function renderRun() {
  const r = model.run;
  if (!r) return;
  // The report is as of when it loaded: a run that changed status (asks,
  // parks, ends) gets it again, so the frame shows how it went on.
  if (reportStatus && r.status !== reportStatus && view) loadReport(view.signal);
  reportStatus = r.status;
  $("run-id").textContent = r.run_id;
  const st = $("run-status");
  const shown = detailStatus(r);
  st.textContent = shown;
  st.className = "status status-" + shown;
  const listing = model.runs.get(r.run_id);
  $("run-workflow").textContent = (listing ? listing.workflow : basename(r.scope_dir)) + " · started " + when(r.created_at);
  const input = r.options && r.options.input != null ? r.options.input : r.input;
  $("run-input").textContent = input || "";
  show($("run-input-box"), !!input);
  let cost = usd(r.total_cost_usd) + " spent";
  const meter = $("run-meter");
  if (r.budget_usd > 0) {
    cost += " of " + usd(r.budget_usd);
    meter.max = r.budget_usd;
    meter.value = Math.min(r.total_cost_usd, r.budget_usd);
    meter.high = r.budget_usd * 0.8;
    meter.textContent = Math.round((100 * r.total_cost_usd) / r.budget_usd) + "%";
  }
  // A run of scripted replies (serve --replies) spent nothing: say so.
  if (r.options && r.options.scripted) cost += " (scripted replies: no model ran, nothing was billed)";
  $("run-cost").textContent = cost;
  show(meter, r.budget_usd > 0);
  const w = r.wait;
  const waiting = !!(w && w.until);
  if (waiting) {
    $("run-wait-reason").textContent = w.reason || "usage limit";
    $("run-wait-until").textContent = when(w.until);
    $("run-wait-until").dateTime = w.until;
    $("run-wait-left").dataset.until = w.until;
  }
  show($("run-wait"), waiting);
  $("run-failure").textContent = r.error || "";
  show($("run-failure"), !!r.error);
  // A run that ended without one has none; "yet" would promise one.
  $("run-result").textContent = r.result != null ? r.result : FINISHED.has(r.status) ? "none" : "none yet";
  $("run-result").className = r.result != null ? "" : "muted";
  // "Pausing…" stays until the run has parked (or ended).
  const note = $("run-action-message");
  if (note.dataset.until && (r.status === note.dataset.until || FINISHED.has(r.status))) {
    note.textContent = "";
    delete note.dataset.until;
  }
  $("run-pause").disabled = FINISHED.has(r.status) || r.status === "paused";
  $("run-cancel").disabled = FINISHED.has(r.status);
  if (FINISHED.has(r.status)) show($("run-cancel-confirm"), false);
  $("run-resume").disabled = !RESUMABLE.has(r.status);
  $("run-budget").disabled = !RESUMABLE.has(r.status);
  $("run-delete").disabled = !FINISHED.has(r.status);
  $("run-agents").replaceChildren(
    ...(r.agents || []).map((a) =>
      el(
        "tr",
        { "data-agent": a.id },
        el("td", {}, el("strong", { text: a.id }), a.parent ? el("span", { class: "muted", text: " ← " + a.parent }) : null),
        el("td", {}, el("code", { text: a.current_state || "" })),
        el("td", {}, statusChip(a.status)),
        el("td", { class: "num", text: String(a.steps || 0) }),
        el("td", { class: "activity", text: ACTIVE.has(a.status) ? model.activity.get(a.id) || "" : "" }),
        el("td", { class: "error-text", text: a.last_error || "" }),
      ),
    ),
  );
  if (view) renderDraft(r, view.signal);
  tick();
}

let refetch = null;

// refreshRun fetches the run again soon; bursts of events fetch once.
function refreshRun() {
  if (refetch || !view) return;
  const signal = view.signal;
  const id = model.runID;
  refetch = setTimeout(async () => {
    refetch = null;
    try {
      const r = await api("GET", "/runs/" + encodeURIComponent(id), undefined, signal);
      if (id === model.runID) {
        model.run = r;
        renderRun();
      }
    } catch (err) {
      notify(err);
    }
  }, 150);
}

// setActivity shows what agent does now in its row of the agents table.
function setActivity(agent, text) {
  if (!agent) return;
  model.activity.set(agent, text);
  const cell = document.querySelector('#run-agents tr[data-agent="' + CSS.escape(agent) + '"] .activity');
  if (cell) cell.textContent = text;
}

const QUIET = new Set(["text", "tool_use", "still_running", "wait_tick", "waiting_for", "print", "api_retry"]);

// addEvent puts one event of the run's stream on the timeline; an event
// that changes the run has the run fetched again.
function addEvent(ev) {
  const what = describe(ev, setActivity);
  if (!QUIET.has(ev.type)) refreshRun();
  if (!what) return;
  const ol = $("run-timeline");
  // Follow the newest line unless the reader scrolled up to read.
  const atEnd = ol.scrollTop + ol.clientHeight >= ol.scrollHeight - 8;
  ol.append(
    el(
      "li",
      { class: "ev ev-" + ev.type },
      el("time", { dateTime: ev.time || "", text: ev.time ? clock(ev.time) : "" }),
      el("span", { class: "agent", text: ev.agent || "", title: ev.agent || "" }),
      el("span", { class: "what", text: what }),
    ),
  );
  while (ol.children.length > MAX_TIMELINE) ol.firstChild.remove();
  if (atEnd) ol.scrollTop = ol.scrollHeight;
}

// loadReport shows the run's report in its frame, which says (in
// data-status, once loaded) the run's status the report was asked at.
async function loadReport(signal) {
  const status = model.run ? model.run.status : "";
  const frame = $("run-report");
  try {
    const j = await api("POST", "/runs/" + encodeURIComponent(model.runID) + "/report-link", {}, signal);
    delete frame.dataset.status;
    frame.dataset.asked = status;
    frame.src = j.url;
  } catch (err) {
    notify(err);
  }
}

function openRun(id) {
  closeRun();
  view = new AbortController();
  const signal = view.signal;
  model.runID = id;
  model.run = null;
  model.activity = new Map();
  $("run-id").textContent = id;
  $("run-status").textContent = "";
  $("run-timeline").replaceChildren();
  $("run-action-message").textContent = "";
  delete $("run-action-message").dataset.until;
  $("run-error-text").textContent = "";
  show($("run-error-text"), false);
  show($("run-delete-confirm"), false);
  $("run-agents").replaceChildren();
  $("run-report").removeAttribute("src");
  delete $("run-report").dataset.status;
  reportStatus = "";
  renderAsks();
  api("GET", "/runs/" + encodeURIComponent(id), undefined, signal)
    .then((r) => {
      model.run = r;
      renderRun();
    })
    .catch((err) => {
      if (err.name === "AbortError" || err.status === 401) return;
      $("run-error-text").textContent = err.message;
      show($("run-error-text"), true);
    });
  loadReport(signal);
  let ended = false;
  stream("/runs/" + encodeURIComponent(id) + "/events", signal, {
    resume: true,
    event: (type, data) => {
      // A run that paused ends its drive, not its stream: it may resume.
      if (type === "run_ended") ended = FINISHED.has(data.status);
      if (type === "run_resumed") ended = false;
      if (!data.type) data.type = type;
      addEvent(data);
    },
    done: () => ended,
  });
}

// closeRun stops following the run shown.
function closeRun() {
  if (view) view.abort();
  view = null;
  model.runID = "";
  if (refetch) clearTimeout(refetch);
  refetch = null;
}

// act runs fn for a button of the run's controls, showing its error.
async function act(button, fn) {
  const msg = $("run-action-message");
  msg.textContent = "";
  delete msg.dataset.until;
  msg.className = "";
  button.disabled = true;
  try {
    await fn();
  } catch (err) {
    msg.className = "error-text";
    msg.textContent = err.message;
  }
  if (model.run) renderRun();
  else button.disabled = false;
}

function runPath(suffix) {
  return "/runs/" + encodeURIComponent(model.runID) + suffix;
}

function wireRunControls() {
  wireDraft({ api, runPath, refresh: refreshRun });
  $("run-pause").addEventListener("click", () =>
    act($("run-pause"), async () => {
      model.run = await api("POST", runPath("/pause"), {});
      $("run-action-message").textContent = "Pausing: running steps finish first.";
      $("run-action-message").dataset.until = "paused";
    }),
  );
  $("run-cancel").addEventListener("click", () => {
    show($("run-cancel-confirm"), true);
    $("run-cancel-no").focus();
  });
  $("run-cancel-no").addEventListener("click", () => {
    show($("run-cancel-confirm"), false);
    $("run-cancel").focus();
  });
  $("run-cancel-yes").addEventListener("click", () =>
    act($("run-cancel-yes"), async () => {
      model.run = await api("POST", runPath("/cancel"), {});
      show($("run-cancel-confirm"), false);
      $("run-action-message").textContent = "Cancelling: running steps are stopped.";
      $("run-action-message").dataset.until = "failed";
    }),
  );
  $("run-resume").addEventListener("click", () =>
    act($("run-resume"), async () => {
      const b = $("run-budget").value;
      model.run = await api("POST", runPath("/resume"), { budget: b !== "" ? Number(b) : null });
      $("run-budget").value = "";
      $("run-action-message").textContent = "Resumed.";
    }),
  );
  $("run-delete").addEventListener("click", () => {
    show($("run-delete-confirm"), true);
    $("run-delete-no").focus();
  });
  $("run-delete-no").addEventListener("click", () => {
    show($("run-delete-confirm"), false);
    $("run-delete").focus();
  });
  $("run-delete-yes").addEventListener("click", () =>
    act($("run-delete-yes"), async () => {
      const id = model.runID;
      // Follow it no more before it goes: a fetch of it due or in flight
      // would find it gone, and the browser logs the 404.
      closeRun();
      try {
        await api("DELETE", "/runs/" + encodeURIComponent(id));
      } catch (err) {
        openRun(id);
        throw err;
      }
      model.run = null;
      model.runs.delete(id);
      location.hash = "#/";
    }),
  );
  $("run-report").addEventListener("load", (e) => {
    if (e.target.getAttribute("src")) e.target.dataset.status = e.target.dataset.asked || "";
  });
  $("run-report-refresh").addEventListener("click", () => {
    if (view) loadReport(view.signal);
  });
}

// ---- routing and start --------------------------------------------------

// route shows the view the address names: #/runs/ID or the lists.
function route() {
  if (!token) return;
  const m = /^#\/runs\/(.+)$/.exec(location.hash);
  show($("notice"), false);
  if (m) {
    const id = decodeURIComponent(m[1]);
    show($("home"), false);
    show($("run"), true);
    if (id !== model.runID) openRun(id);
  } else {
    closeRun();
    show($("run"), false);
    show($("home"), true);
  }
}

function stop() {
  closeRun();
  if (session) session.abort();
  session = null;
}

// start follows the daemon with the token: header, lists, current view.
function start() {
  stop();
  session = new AbortController();
  const signal = session.signal;
  show($("login"), false);
  api("GET", "/daemon", undefined, signal)
    .then((d) => {
      model.daemon = d;
      renderDaemon();
    })
    .catch(notify);
  stream("/events", signal, {
    open: () => {
      show($("connection"), false);
      loadRuns(signal).catch(notify);
    },
    lost: () => show($("connection"), true),
    event: (type, data) => {
      switch (type) {
        case "run":
          model.runs.set(data.run_id, data);
          renderRuns();
          if (data.run_id === model.runID) refreshRun();
          break;
        case "run_removed":
          model.runs.delete(data.run_id);
          renderRuns();
          if (data.run_id === model.runID) {
            $("run-error-text").textContent = "This run was deleted.";
            show($("run-error-text"), true);
          }
          break;
        case "asks":
          model.asks = data.asks || [];
          renderAsks();
          break;
        case "workflows":
          model.workflows = data.workflows || [];
          renderWorkflows();
          break;
        case "schedules":
          model.schedules = data.schedules || [];
          renderSchedules();
          break;
        case "daemon":
          model.daemon = data;
          renderDaemon();
          break;
      }
    },
  });
  route();
}

document.addEventListener("DOMContentLoaded", () => {
  takeToken();
  $("login-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const t = $("login-token").value.trim();
    if (!t) return;
    token = t;
    try {
      localStorage.setItem(TOKEN_KEY, t);
    } catch (err) {
      // private mode: the token lives as long as the page
    }
    $("login-token").value = "";
    $("login-message").textContent = "";
    start();
  });
  $("runs-filter").addEventListener("change", () => {
    runsPage = 0;
    renderRuns();
  });
  $("runs-search").addEventListener("input", () => {
    runsPage = 0;
    renderRuns();
  });
  $("runs-newer").addEventListener("click", () => {
    runsPage = Math.max(0, runsPage - 1);
    renderRuns();
  });
  $("runs-older").addEventListener("click", () => {
    runsPage++;
    renderRuns();
  });
  $("zone").textContent = zoneLabel();
  wireRunControls();
  window.addEventListener("hashchange", () => {
    // A link with a token, followed in this tab: take it, as at the start.
    if (/(^#|&)token=/.test(location.hash)) {
      takeToken();
      start();
    } else route();
  });
  setInterval(tick, 1000);
  if (token) start();
  else signOut("");
});
