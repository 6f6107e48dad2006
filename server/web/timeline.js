// One short line per event of a run, for the run's timeline.
import { usd, duration, clock } from "./dom.js";

// firstLine is the first line of s, cut to n characters.
export function firstLine(s, n) {
  const l = String(s || "").trim().split("\n")[0];
  return l.length > n ? l.slice(0, n - 1) + "…" : l;
}

// took is how long a step took: milliseconds under a second, as a scripted
// step or a script takes, else as duration says.
function took(ms) {
  return ms < 1000 ? Math.round(ms) + " ms" : duration(ms);
}

// describe is the timeline's line for an event, or "" for the live
// events that only change an agent's current activity, which it reports
// with setActivity(agent, text).
export function describe(ev, setActivity) {
  const cost = ev.cost_usd != null ? " " + usd(ev.cost_usd) : "";
  switch (ev.type) {
    case "text":
      setActivity(ev.agent, firstLine(ev.message, 120));
      return "";
    case "tool_use":
      setActivity(ev.agent, (ev.tool || "tool") + (ev.message ? ": " + firstLine(ev.message, 100) : ""));
      return "";
    case "still_running":
      setActivity(ev.agent, "still running" + (ev.state ? " " + ev.state : ""));
      return "";
    case "wait_tick":
    case "waiting_for":
      return "";
    case "run_started":
      return "run started" + (ev.budget_usd ? ", budget " + usd(ev.budget_usd) : "");
    case "run_resumed":
      return "run resumed";
    case "step_started":
      setActivity(ev.agent, "step " + (ev.state || ""));
      return "step " + (ev.seq ? ev.seq + " " : "") + (ev.state || "") + (ev.attempt > 1 ? " (attempt " + ev.attempt + ")" : "") + (ev.reminder ? " (reminder)" : "");
    case "step_ended":
      setActivity(ev.agent, "");
      return "ended " + (ev.state || "") + (ev.outcome ? ": " + ev.outcome : "") + cost + (ev.duration_ms ? " in " + took(ev.duration_ms) : "");
    case "transition":
      // A <result> goes nowhere: it ends the agent (or returns) with its payload.
      if (!ev.target) return (ev.tag ? "<" + ev.tag + ">" : "transition") + (ev.payload ? " " + firstLine(ev.payload, 100) : "");
      return (ev.tag ? "<" + ev.tag + "> " : "") + "→ " + ev.target;
    case "spawn":
    case "fork":
      return "spawned " + (ev.child || "") + (ev.state || ev.target ? " at " + (ev.state || ev.target) : "");
    case "wait":
    case "wait_started":
      return "waits until " + (ev.until ? clock(ev.until) : "?") + (ev.message ? ": " + firstLine(ev.message, 80) : "");
    case "wait_over":
      return "wait over";
    case "ask":
    case "ask_opened":
      setActivity(ev.agent, "asking " + (ev.ask_id || ""));
      return "asks " + (ev.ask_id || "") + (ev.deadline ? ", answer by " + clock(ev.deadline) : "");
    case "ask_answered":
      return (ev.ask_id || "ask") + " answered";
    case "ask_expired":
      return (ev.ask_id || "ask") + " expired" + (ev.timeout_next ? " → " + ev.timeout_next : "");
    case "agent_completed":
      return "agent done";
    case "agent_failed":
      return "agent failed" + (ev.message ? ": " + firstLine(ev.message, 100) : "");
    case "stopping":
      // A pause or the daemon's stop: steps in flight finish, none starts.
      return ev.message ? "stopping: " + firstLine(ev.message, 100) : "stopping: steps in flight finish, no new one starts";
    case "paused":
      return "paused";
    case "budget_exceeded":
      return "budget exceeded" + (ev.total_cost_usd != null ? " at " + usd(ev.total_cost_usd) : "");
    case "run_ended":
      return "run ended: " + (ev.status || "");
    case "print":
      return "print: " + firstLine(ev.message, 120);
    case "summary":
      return "";
    default:
      return ev.type.replace(/_/g, " ") + (ev.state ? " " + ev.state : "") + (ev.message ? ": " + firstLine(ev.message, 100) : "");
  }
}
