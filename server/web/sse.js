// Server-sent events read with fetch, which (unlike EventSource) can send
// the Authorization header: a parser of the text/event-stream format over
// the response body, and a follower that reconnects with backoff.

// readEvents parses the text/event-stream body and calls dispatch with
// {id, event, data} for each event; it returns when the body ends.
export async function readEvents(body, dispatch) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  let type = "";
  let data = [];
  let id = null;
  const line = (l) => {
    if (l === "") {
      if (data.length > 0) dispatch({ id, event: type || "message", data: data.join("\n") });
      type = "";
      data = [];
      return;
    }
    if (l[0] === ":") return;
    const c = l.indexOf(":");
    const field = c < 0 ? l : l.slice(0, c);
    let value = c < 0 ? "" : l.slice(c + 1);
    if (value[0] === " ") value = value.slice(1);
    if (field === "event") type = value;
    else if (field === "data") data.push(value);
    else if (field === "id" && !value.includes("\0")) id = value;
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += value;
    for (;;) {
      const i = buf.search(/\r\n|\r|\n/);
      if (i < 0) break;
      // A \r at the end may be the first half of \r\n.
      if (buf[i] === "\r" && i === buf.length - 1) break;
      const n = buf[i] === "\r" && buf[i + 1] === "\n" ? 2 : 1;
      line(buf.slice(0, i));
      buf = buf.slice(i + n);
    }
  }
}

function sleep(ms, signal) {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    });
  });
}

// follow reads the event stream at url until opts.signal aborts,
// reconnecting with backoff. opts.headers() gives the request's headers;
// with opts.resume the last id seen goes along as Last-Event-ID.
// opts.open runs on each connection, opts.event(name, data) on each event
// (data decoded from JSON), opts.lost when a connection is lost.
// opts.refused(status) runs on a 4xx answer and says whether to stop;
// opts.done, when the server ends the stream, says whether to stop.
export async function follow(url, opts) {
  const signal = opts.signal;
  let delay = 500;
  let last = null;
  while (!signal.aborted) {
    try {
      const headers = Object.assign({ Accept: "text/event-stream" }, opts.headers());
      if (opts.resume && last !== null) headers["Last-Event-ID"] = last;
      const res = await fetch(url, { headers, signal, cache: "no-store" });
      if (res.status >= 400 && res.status < 500 && opts.refused && opts.refused(res.status)) return;
      if (!res.ok) throw new Error("event stream " + url + ": " + res.status);
      delay = 500;
      if (opts.open) opts.open();
      await readEvents(res.body, (ev) => {
        if (ev.id !== null) last = ev.id;
        let data;
        try {
          data = JSON.parse(ev.data);
        } catch (e) {
          return; // not an event of ours
        }
        opts.event(ev.event, data);
      });
      if (opts.done && opts.done()) return;
    } catch (e) {
      if (signal.aborted) return;
    }
    if (opts.lost) opts.lost();
    await sleep(delay, signal);
    delay = Math.min(delay * 2, 30000);
  }
}
