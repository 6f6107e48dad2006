// Building elements, formatting values and keeping lists, for the page.
// Text is only ever set with textContent: what the server sends is data.
// el builds an element; strings among children become text nodes.
export function el(tag, props, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k in e && typeof v !== "string") e[k] = v;
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    e.append(typeof c === "string" ? document.createTextNode(c) : c);
  }
  return e;
}

export function show(e, on) {
  e.hidden = !on;
}


export function usd(n) {
  return "$" + (Number(n) || 0).toFixed(2);
}

export function duration(ms) {
  if (ms <= 0) return "0s";
  let s = Math.ceil(ms / 1000);
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  if (d > 0) return d + "d " + h + "h";
  if (h > 0) return h + "h " + String(m).padStart(2, "0") + "m";
  if (m > 0) return m + "m " + String(s).padStart(2, "0") + "s";
  return s + "s";
}

// Every time on the page is in the browser's time zone, named once in the
// header (zoneLabel) and on each full date and time (when).
export function clock(t) {
  const d = new Date(t);
  return isNaN(d) ? "" : d.toLocaleTimeString();
}

export function when(t) {
  const d = new Date(t);
  return isNaN(d) ? "" : d.toLocaleString(undefined, { timeZoneName: "short" });
}

// zoneLabel names the time zone the page shows times in.
export function zoneLabel() {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "local time";
  const parts = new Intl.DateTimeFormat(undefined, { timeZoneName: "short" }).formatToParts(new Date());
  const short = (parts.find((p) => p.type === "timeZoneName") || {}).value;
  return "Times in " + zone + (short && short !== zone ? " (" + short + ")" : "");
}

export function basename(p) {
  const s = String(p || "").replace(/\/+$/, "");
  return s.slice(s.lastIndexOf("/") + 1);
}

export function statusChip(status) {
  return el("span", { class: "status status-" + status, text: status });
}

// Live countdowns and ages: elements with data-until count down to it,
// elements with data-since count up from it.
export function tick() {
  const now = Date.now();
  for (const e of document.querySelectorAll("[data-until]")) {
    const t = Date.parse(e.dataset.until);
    if (!isNaN(t)) e.textContent = duration(t - now);
  }
  for (const e of document.querySelectorAll("[data-since]")) {
    const t = Date.parse(e.dataset.since);
    if (!isNaN(t)) e.textContent = duration(now - t);
  }
}


// reconcile makes box hold one node per item, in order, rebuilding a
// node only when its signature changed, so what a person is typing in a
// form survives updates of other items.
export function reconcile(box, items, key, signature, build) {
  const old = new Map();
  for (const n of Array.from(box.children)) old.set(n.dataset.key, n);
  let prev = null;
  for (const it of items) {
    const k = key(it);
    const sig = signature(it);
    let n = old.get(k);
    if (n && n.dataset.sig === sig) {
      old.delete(k); // kept as it is
    } else {
      n = build(it); // the node it replaces, if any, goes below
      n.dataset.key = k;
      n.dataset.sig = sig;
    }
    const want = prev ? prev.nextSibling : box.firstChild;
    if (want !== n) box.insertBefore(n, want);
    prev = n;
  }
  for (const n of old.values()) n.remove();
}
