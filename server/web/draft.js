// The Changes box of a run in the worktree mode: its draft's files changed
// against the commit it started from, its patch folded, and Publish and
// Discard, each with a confirmation. Text from the server is only ever set
// with textContent.
import { el, show } from "./dom.js";

const $ = (id) => document.getElementById(id);

let ctx = null; // { api, runPath, refresh } from the page
let loadedFor = ""; // what the box was last loaded for
let loadedRun = ""; // the run it was loaded for: another folds the patch

// wireDraft wires the box's buttons; c gives the page's api(), runPath()
// and a refresh of the run shown.
export function wireDraft(c) {
  ctx = c;
  confirmPair("run-publish", () => {
    $("run-publish-target").textContent = $("run-publish-into").value.trim() || "the branch it started from";
  });
  confirmPair("run-discard");
  $("run-publish-yes").addEventListener("click", () =>
    act($("run-publish-yes"), async () => {
      const body = { squash: $("run-publish-squash").checked };
      const into = $("run-publish-into").value.trim();
      if (into) body.into = into;
      const p = await ctx.api("POST", ctx.runPath("/publish"), body);
      show($("run-publish-confirm"), false);
      let msg = "Published into " + p.into + " (" + p.how + ") at " + p.commit.slice(0, 7) + ".";
      if (p.kept.length) msg += " Kept, with work not in the draft: " + p.kept.join(", ") + ".";
      say(msg);
    }),
  );
  $("run-discard-yes").addEventListener("click", () =>
    act($("run-discard-yes"), async () => {
      const d = await ctx.api("POST", ctx.runPath("/discard"), {});
      show($("run-discard-confirm"), false);
      say("Discarded: " + (d.removed.length ? d.removed.join(", ") : "nothing was left") + ".");
    }),
  );
}

// confirmPair shows the confirmation of button id, and hides it again.
function confirmPair(id, before) {
  $(id).addEventListener("click", () => {
    if (before) before();
    show($(id + "-confirm"), true);
    $(id + "-no").focus();
  });
  $(id + "-no").addEventListener("click", () => {
    show($(id + "-confirm"), false);
    $(id).focus();
  });
}

function say(text, error) {
  const m = $("run-draft-message");
  m.className = error ? "error-text" : "";
  m.textContent = text;
}

// act runs fn for a button, shows its error, and reloads the run and the
// box after.
async function act(button, fn) {
  say("");
  button.disabled = true;
  try {
    await fn();
  } catch (err) {
    say(err.message, true);
  }
  button.disabled = false;
  loadedFor = "";
  ctx.refresh();
}

// renderDraft shows the box for run r when it works in git worktrees, and
// loads its diff again when the run or its draft changed.
export function renderDraft(r, signal) {
  const ws = r.workspace;
  const on = !!(ws && ws.mode === "worktree");
  show($("run-draft-box"), on);
  if (!on) {
    loadedFor = "";
    return;
  }
  const status = ws.status || "draft";
  const driven = r.driven_by != null;
  // An interrupted publish or discard is finished by the same button.
  $("run-publish").disabled = driven || !(status === "draft" || status === "publishing");
  $("run-discard").disabled = driven || !(status === "draft" || status === "discarding");
  $("run-draft-controls").title = driven ? "The run is being driven: pause it, or let it end, first." : "";
  let state = "Draft " + ws.branch + ", from " + (ws.base_branch || "a detached HEAD") + " at " + ws.base_commit.slice(0, 7);
  if (status === "published") state = "Published into " + ws.into + " as " + (ws.published || "").slice(0, 7);
  else if (status === "discarded") state = "Discarded";
  else if (status !== "draft") state += " (" + status + ", interrupted: finish it below)";
  $("run-draft-state").textContent = state;
  const key = [r.run_id, r.status, status, r.updated_at].join("|");
  if (key === loadedFor) return;
  loadedFor = key;
  if (r.run_id !== loadedRun) $("run-draft-patch-box").open = false;
  loadedRun = r.run_id;
  load(r.run_id, signal);
}

async function load(id, signal) {
  let d;
  try {
    d = await ctx.api("GET", "/runs/" + encodeURIComponent(id) + "/diff", undefined, signal);
  } catch (err) {
    if (err.name === "AbortError") return;
    $("run-draft-summary").textContent = err.message;
    $("run-draft-files").replaceChildren();
    $("run-draft-patch").textContent = "";
    show($("run-draft-patch-box"), false);
    show($("run-draft-note"), false);
    return;
  }
  const n = d.files.length;
  $("run-draft-summary").textContent =
    (n === 1 ? "1 file" : n + " files") + " changed, +" + d.added + " −" + d.deleted;
  $("run-draft-files").replaceChildren(
    ...d.files.map((f) =>
      el(
        "li",
        {},
        el("span", { class: "num", text: f.binary ? "binary" : "+" + f.added + " −" + f.deleted }),
        " ",
        el("code", { text: f.path }),
      ),
    ),
  );
  $("run-draft-patch").textContent = d.patch;
  show($("run-draft-patch-box"), d.patch !== "");
  $("run-draft-note").textContent = d.note || "";
  show($("run-draft-note"), !!d.truncated);
}
