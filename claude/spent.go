package claude

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"raymond/claude/sessionfile"
	"raymond/state"
	"raymond/step"
)

// A step that writes no result line (stopped with raymond, which SIGTERMs it as
// it dies, crashed, stopped by a timeout or a Ctrl-C) has still paid for every
// API request it made. Claude Code appends the session lineage's running cost to
// the session file as it exits, a SIGTERM or SIGINT included
// (sessionfile.LastCost), and raymond chose the session's id, so what such a step
// spent is that running cost less what the lineage had cost before it: nothing
// for a new session, the recorded total of the session resumed or branched from
// otherwise. Should a branch's copy of its parent's lines hold the parent's
// running cost (2.1.330 copies none), less the same prior it is nothing spent.
// A process killed with SIGKILL writes nothing: its spend is not known.

// priorCost is what the lineage of req's session had cost before the step, and
// whether that is known: 0 for a new session, the total raymond recorded for
// the session resumed or branched from, else the parent's last running cost in
// its session file. For a resumed session that last is only right before the
// step starts (before is true): afterwards the step's own spend is in it.
func priorCost(r Request, req step.Request, before bool) (float64, bool) {
	s := req.Step
	switch {
	case s.Mode == state.SessionNew || s.ResumeSession == "":
		return 0, true
	case req.PriorCostKnown:
		return req.PriorCostUSD, true
	case s.Mode == state.SessionResume && !before:
		return 0, false
	}
	config, cwd, err := sessionPlace(r)
	if err != nil {
		return 0, false
	}
	c, ok, err := sessionfile.LastCost(config, cwd, s.ResumeSession)
	return c.TotalUSD, ok && err == nil && !perCallVersion(c.Version)
}

// bookUnreported books in out, the result of a step that wrote no result line,
// what the step spent as Claude Code's session file says (see above). Nothing
// is booked when the prior is unknown, when the file has no running cost, or
// for a CLI known to report per-call costs (by the step's init line, else the
// session file's last version), whose running cost is not known to cover the
// lineage. A file that cannot be read is a warning.
func bookUnreported(out *step.Result, r Request, req step.Request, prior float64, known bool) {
	if !known || perCallVersion(out.Version) {
		return
	}
	s := req.Step
	id := s.SessionID
	if s.Mode == state.SessionResume {
		id = s.ResumeSession
	}
	if id == "" {
		return
	}
	config, cwd, err := sessionPlace(r)
	if err != nil {
		out.Warnings = append(out.Warnings, fmt.Sprintf("what the step spent is not known: %v", err))
		return
	}
	c, ok, err := sessionfile.LastCost(config, cwd, id)
	if err != nil {
		out.Warnings = append(out.Warnings, fmt.Sprintf("what the step spent is not known: %v", err))
		return
	}
	if !ok || out.Version == "" && perCallVersion(c.Version) {
		return
	}
	total := c.TotalUSD
	out.Billed, out.Unreported = true, true
	out.CostUSD, out.SessionCostUSD = max(total-prior, 0), max(total, prior)
	if out.SessionID == "" {
		out.SessionID = id
	}
}

// salvageUnreported is what a step cut short when its driver died spent, from
// its session file, with the version its output gave, if any. ok is false when
// that is unknown or nothing.
func salvageUnreported(r Request, req step.Request, lines []byte) (step.Result, bool) {
	d := NewDecoder(nil)
	for line := range bytes.Lines(lines) {
		d.Line(bytes.TrimRight(line, "\n"))
	}
	out := step.Result{Version: d.Result().Version}
	prior, known := priorCost(r, req, false)
	bookUnreported(&out, r, req, prior, known)
	return out, out.Billed && out.CostUSD > 0
}

// sessionPlace is where the process of r keeps its sessions: Claude Code's
// configuration folder as its environment sets it ($CLAUDE_CONFIG_DIR, taken
// from its working directory when relative, else $HOME/.claude), and that
// working directory.
func sessionPlace(r Request) (config, cwd string, err error) {
	if cwd = r.Cwd; cwd == "" {
		if cwd, err = os.Getwd(); err != nil {
			return "", "", err
		}
	}
	getenv := os.Getenv
	if r.Env != nil {
		getenv = func(key string) string {
			v := ""
			for _, kv := range r.Env {
				if k, val, ok := strings.Cut(kv, "="); ok && k == key {
					v = val
				}
			}
			return v
		}
	}
	if config = getenv("CLAUDE_CONFIG_DIR"); config != "" {
		if !filepath.IsAbs(config) {
			config = filepath.Join(cwd, config)
		}
		return config, cwd, nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", "", fmt.Errorf("neither CLAUDE_CONFIG_DIR nor HOME is set for claude")
	}
	return filepath.Join(home, ".claude"), cwd, nil
}
