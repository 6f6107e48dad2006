package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"raymond/daemon"
	"raymond/notify"
	"raymond/orchestrator"
	"raymond/project"
	"raymond/state"
)

// notifyFlush bounds how long a command that drove runs waits, as it
// exits, for its notifications to be taken: the last one is usually the
// one that matters (completed, failed), but a dead receiver must not hold
// the terminal.
const notifyFlush = 5 * time.Second

// startNotifier starts the notifier of the [[notify]] entries of p's
// config; nil when there are none. Its warnings go to warn. It says on
// progress where notifications go, as for a claude the person did not
// choose: the config travels with the repository, and whoever wrote it
// chose the receivers.
func startNotifier(p *project.Project, progress io.Writer, warn func(string), log *slog.Logger, getenv func(string) string) (*notify.Notifier, error) {
	targets := p.NotifyTargets()
	if len(targets) == 0 {
		return nil, nil
	}
	n, err := notify.New(targets, notify.Options{Warn: warn, Log: log, Instant: getenv("RAYMOND_TEST_CLOCK") == "instant"})
	if err != nil {
		return nil, &usageError{msg: err.Error(), hint: "Fix the [[notify]] entry in " + project.ConfigPath(p.Dir) + " (docs/configuration.md)."}
	}
	for _, t := range targets {
		events := t.Events
		if len(events) == 0 {
			events = notify.Events
		}
		text := ""
		if t.IncludeText {
			text = ", with questions and results"
		}
		to := notify.Redact(t.URL)
		if t.Name != "" {
			to = fmt.Sprintf("%s (%s)", t.Name, to)
		}
		fmt.Fprintf(progress, "raymond: notifications (%s%s) go to %s, as set by %s\n",
			strings.Join(events, ", "), text, to, project.ConfigPath(p.Dir))
	}
	return n, nil
}

// closeNotifier sends what is still queued, for at most notifyFlush.
func closeNotifier(n *notify.Notifier) {
	ctx, cancel := context.WithTimeout(context.Background(), notifyFlush)
	defer cancel()
	n.Close(ctx)
}

// notifySink is the sink that notifies of run r, nil without a notifier.
// Its links go to the daemon's page at page ("" for none). An ask's
// notification says how to answer it from the command line, which works
// for a daemon's run too, unless prompted says the question is on this
// process's terminal: raymond answer is refused while a process drives
// the run.
func notifySink(n *notify.Notifier, r *state.Run, page string, prompted func() bool) orchestrator.Sink {
	if n == nil {
		return nil
	}
	return n.Sink(notify.Run{ID: r.WorkflowID, Workflow: project.WorkflowName(r), Created: r.CreatedAt, Page: page,
		Answer: func(askID string) string {
			if prompted != nil && prompted() {
				return ""
			}
			return fmt.Sprintf("raymond answer %s %s 'TEXT'", project.ShellQuote(r.WorkflowID), project.ShellQuote(askID))
		}})
}

// servingPage is the page of the daemon that serves p now, "" when none
// does: a run of the command line shows there too.
func servingPage(p *project.Project) string {
	if info, ok := daemon.Running(filepath.Join(p.Dir, ".raymond")); ok {
		return info.URL
	}
	return ""
}

// switchWriter is a writer whose destination can change: the notifier's
// warnings go where the progress lines of the moment go.
type switchWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *switchWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *switchWriter) set(w io.Writer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w = w
}
