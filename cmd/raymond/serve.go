package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"raymond/catalog"
	"raymond/claude"
	"raymond/daemon"
	"raymond/orchestrator"
	"raymond/project"
	"raymond/script"
	"raymond/scripted"
	"raymond/server"
	"raymond/state"
	"raymond/workspace"
)

var serveHelp = help{
	name:  "serve",
	usage: "raymond serve [--addr HOST:PORT] [--root DIR]... [flags]",
	text: `
Run the daemon: an HTTP API and a web page over this project's runs. It
drives the runs started from the page or the API, in the project's own
.raymond/ store, so 'raymond list', 'status', 'transcript' and 'answer' see
them as any run.

At start it resumes every run left interrupted (whoever drove it), opens the
asks of asking runs again with their deadlines, and resumes the runs its own
last stop paused; runs paused on purpose are listed, not resumed
(--no-recover resumes nothing). One daemon per project: a second is refused.

Workflows are found under each --root (default: the project's workflows/
folder if it has one, else the project folder), and followed live as files
change; broken ones are listed with their lint errors.

Every /api request needs 'Authorization: Bearer TOKEN'. The token is made
at the first start in .raymond/serve.token (mode 0600); the page asks for
it once, and it is never printed. A token file others can read, another
user's, or one git tracks is refused. Listening on an address other than
loopback needs --addr and --allow-remote on the command line (a project's
config cannot ask for it), and is said loudly: the API can run commands on
this machine through the workflows it starts.

Schedules ([[serve.schedule]] in the config, schedule: in a workflow's
manifest) launch workflows by cron, and webhooks ([[serve.hook]]) launch
them on deliveries signed with a shared secret, at /api/v1/hooks/NAME
without the token; what they did is kept in .raymond/ across restarts.

The first SIGINT or SIGTERM stops every run at its next step boundary (steps
in flight finish) and exits once they are parked; a second kills the steps
in flight. Under systemd (Type=notify) readiness and stopping are notified.
docs/daemon.md has a unit file, the API and the security model.`,
	examples: []string{
		"raymond serve",
		"raymond serve --addr 127.0.0.1:8080 --root workflows --root ~/shared-workflows",
		"raymond serve --max-steps 4 --daily-cap 50",
	},
}

// DefaultAddr is where raymond serve listens by default.
const DefaultAddr = "127.0.0.1:7777"

func runServe(ctx context.Context, env *cmdEnv, args []string) error {
	fs := newFlagSet("serve")
	addr := fs.String("addr", DefaultAddr, "listen on `HOST:PORT`")
	roots := fs.StringArray("root", nil, "find workflows under `DIR` (repeatable)")
	noRecover := fs.Bool("no-recover", false, "resume nothing at start")
	maxSteps := fs.Int("max-steps", daemon.DefaultMaxSteps, "at most `N` steps run at once across all runs")
	dailyCap := fs.Float64("daily-cap", 0, "stop starting steps for the day once the day's spend reaches `USD` (0: none)")
	allowRemote := fs.Bool("allow-remote", false, "allow listening on an address other than loopback")
	logFormat := fs.String("log-format", "", "`text` or json (default: text on a terminal, json otherwise)")
	projectDir := fs.String("project", "", "the project `DIR` that holds .raymond/ (default: found from the current folder)")
	replies := fs.String("replies", "", "answer steps from the replies `FILE` instead of running claude (offline trials)")
	if done, err := parseFlags(fs, args, serveHelp, env.stdout); done || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return serveHelp.usageError("unexpected argument %q", fs.Arg(0))
	}
	p, err := openProject(*projectDir, true)
	if err != nil {
		return err
	}
	cfg := p.Config
	if cfg == nil {
		cfg = &project.Settings{}
	}
	sv := cfg.Serve
	if !fs.Changed("addr") && sv.Addr != nil {
		// A project's config travels with its repository: whoever wrote
		// it must not be able to open this machine to the network.
		if h, _, err := net.SplitHostPort(*sv.Addr); err == nil && !loopbackHost(h) {
			return &usageError{
				msg:  fmt.Sprintf("[serve] addr = %q in %s is not a loopback address, and a project's config cannot open the daemon to the network", *sv.Addr, filepath.Join(p.Dir, ".raymond", "config.toml")),
				hint: fmt.Sprintf("To listen there, say so yourself: raymond serve --addr %s --allow-remote", *sv.Addr),
			}
		}
		*addr = *sv.Addr
	}
	if !fs.Changed("max-steps") && sv.MaxSteps != nil {
		*maxSteps = *sv.MaxSteps
	}
	if !fs.Changed("daily-cap") && sv.DailyCapUSD != nil {
		*dailyCap = *sv.DailyCapUSD
	}
	switch {
	case *maxSteps < 1:
		return serveHelp.usageError("--max-steps must be at least 1, not %d", *maxSteps)
	case *dailyCap < 0:
		return serveHelp.usageError("--daily-cap must be a positive amount of USD, or 0 for none")
	}
	// A daemon outlives the terminal or pipe its stderr was: a write there
	// after it closed must fail (EPIPE), not kill it with SIGPIPE, as Go
	// does for fds 1 and 2 unless SIGPIPE is asked for. Notify rather than
	// Ignore: an ignored signal stays ignored in claude and the scripts.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	// A stop asked for while starting is kept for when the runs are up.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, stopSignals...)
	defer signal.Stop(sigs)
	log, err := newLogger(*logFormat, env.stderr)
	if err != nil {
		return serveHelp.usageError("%v", err)
	}
	if sv.AllowRemote != nil && *sv.AllowRemote && !fs.Changed("allow-remote") {
		log.Warn("[serve] allow_remote in the project's config is not honoured: a project cannot open the daemon to the network; pass --addr HOST:PORT --allow-remote yourself")
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return serveHelp.usageError("--addr %s: give HOST:PORT, such as 127.0.0.1:7777", *addr)
	}
	remote := !loopbackHost(host)
	if remote && !*allowRemote {
		return serveHelp.usageError("--addr %s is not a loopback address: anyone who can reach it and has the token can run workflows on this machine; pass --allow-remote if that is what you want", *addr)
	}
	rootDirs, err := serveRoots(p, *roots, sv.Roots)
	if err != nil {
		return err
	}
	token, err := serveToken(p.Dir)
	if err != nil {
		return err
	}

	findClaude, repliesPath := claude.Find, ""
	if *replies != "" {
		// Read once to refuse a broken file now; each run reads its own.
		if _, err := scripted.Load(*replies); err != nil {
			return &usageError{msg: fmt.Sprintf("--replies: %v", err), hint: "Give a replies file for the scripted runner."}
		}
		if repliesPath, err = filepath.Abs(*replies); err != nil {
			return err
		}
		findClaude = nil
	}
	skip := sv.SkipPermissions != nil && *sv.SkipPermissions
	// The page's address is known once the daemon listens, before any run
	// is driven: an ask's notification links to it.
	var page string
	notifier, err := startNotifier(p, env.stderr, func(msg string) { log.Warn(msg) }, log, env.getenv)
	if err != nil {
		return err
	}
	defer closeNotifier(notifier)
	traces := startTraces(ctx, env, p, log, env.stderr, false)
	defer traces.stop() // after the daemon has closed: its runs' spans have ended
	var sinks func(r *state.Run) []orchestrator.Sink
	if notifier != nil || traces.sinks() != nil {
		sinks = func(r *state.Run) []orchestrator.Sink {
			out := traces.sinks()
			if notifier != nil {
				out = append(out, notifySink(notifier, r, page, nil))
			}
			return out
		}
	}
	d, err := daemon.Open(daemon.Config{Project: p, Runner: claude.Runner{}, Scripts: &script.Runner{}, Fetcher: fetcher(p), Workspaces: workspace.Worktrees{},
		Replies: repliesPath, Scripted: runners,
		MaxSteps: *maxSteps, DailyCapUSD: *dailyCap, SkipPermissions: skip, Log: log, FindClaude: findClaude,
		ClaudeEnv: project.AbsPath(env.getenv("RAYMOND_CLAUDE"), cwd()), Sinks: sinks})
	var le *daemon.LockedError
	if errors.As(err, &le) {
		return &exitError{code: exitUsage, msg: le.Error()}
	}
	if err != nil {
		return err
	}
	defer d.Close()
	cat, err := catalog.New(rootDirs, log)
	if err != nil {
		return &usageError{msg: err.Error(), hint: "Give folders that exist with --root."}
	}
	schedules, hooks, err := serveTriggers(p, sv, cat, d)
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return &usageError{
				msg:  fmt.Sprintf("cannot listen on %s: another program (perhaps the daemon of another project) uses that port", *addr),
				hint: "Give a free port with --addr (127.0.0.1:0 picks one), or stop the program that holds it.",
			}
		}
		return &exitError{code: exitUsage, msg: fmt.Sprintf("cannot listen on %s: %v", *addr, err)}
	}
	bound := ln.Addr().String()
	url := "http://" + pageHost(bound) + "/"
	page = url
	hosts := serveHosts(bound, host, remote)
	if remote {
		log.Warn("listening on a non-loopback address: anyone who can reach it and holds the token can run workflows on this machine; put TLS in front of it",
			"addr", bound)
	}
	srv := server.New(server.Config{Daemon: d, Workflows: cat, Token: token, Version: serveVersion(), Log: log,
		Hosts: hosts, Page: server.Page(), Metrics: server.NewMetrics(d), Schedules: schedules, Hooks: hooks})
	httpSrv := server.HTTPServer(srv, log)
	// Connections past the cap wait in the kernel's backlog: clients must
	// never take the descriptors the runs' steps need.
	ln = server.LimitListener(ln, server.MaxConns(server.NofileLimit()))

	watchCtx, stopWatch := context.WithCancel(context.Background())
	defer stopWatch()
	go func() {
		if err := d.Watch(watchCtx); err != nil {
			log.Error("cannot follow the state folder; the page shows changes made outside the daemon late", "err", err)
		}
	}()
	go func() {
		if err := cat.Watch(watchCtx); err != nil {
			log.Error("cannot follow the workflow folders; restart the daemon to see changes", "err", err)
		}
	}()
	if err := d.WriteInfo(daemon.Info{PID: os.Getpid(), Addr: bound, URL: url, Started: time.Now()}); err != nil {
		return err
	}
	served := make(chan error, 1)
	go func() { served <- httpSrv.Serve(ln) }()

	fmt.Fprintf(env.stderr, "raymond serve: %s\n", p.Dir)
	// Never the token itself: stderr is often a journal that others read.
	fmt.Fprintf(env.stderr, "  page:  %s\n", url)
	fmt.Fprintf(env.stderr, "  token: %s (the page asks for it once)\n", filepath.Join(p.Dir, ".raymond", daemon.TokenFile))
	fmt.Fprintf(env.stderr, "  workflows: %d under %s\n", len(cat.List()), strings.Join(rootDirs, ", "))
	serveTriggersBanner(env.stderr, url, schedules, hooks)
	if !*noRecover {
		rec := d.Recover()
		for _, id := range rec.Resumed {
			log.Info("resumed", "run", id)
		}
		for _, id := range rec.Paused {
			log.Info("left paused (resume it from the page or with POST /api/v1/runs/ID/resume)", "run", id)
		}
		for id, why := range rec.Failed {
			log.Error("cannot resume", "run", id, "err", why)
		}
		fmt.Fprintf(env.stderr, "  recovered: %d runs resumed, %d left paused\n", len(rec.Resumed), len(rec.Paused))
	} else {
		// Say what a start would have resumed, so the runs left standing
		// are not forgotten.
		left := 0
		for _, l := range d.Runs() {
			if l.DrivenBy == nil && (l.Interrupted || l.Status == state.StatusAsking || l.Status == state.StatusCreated) {
				left++
			}
		}
		fmt.Fprintf(env.stderr, "  recovered: nothing (--no-recover); %d runs interrupted or asking wait for a resume from the page\n", left)
	}
	sdNotify("READY=1\nSTATUS=serving " + url)
	var dog sync.WaitGroup
	defer func() { stopWatch(); dog.Wait() }()
	dog.Go(func() { watchdog(watchCtx, watchdogEvery(), d.Alive, log) })
	// Schedules fire once the runs are recovered, so that a schedule's
	// last run resumed counts as still going; they stop as the stop begins.
	schedCtx, stopSchedules := context.WithCancel(watchCtx)
	defer stopSchedules()
	dog.Go(func() { schedules.Run(schedCtx) })

	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	case <-sigs:
	}
	stopSchedules()
	sdNotify("STOPPING=1\nSTATUS=parking the runs at their next step boundary")
	fmt.Fprintf(env.stderr, "raymond serve: stopping: %d runs finish their steps in flight; a second signal kills them\n", d.Active())
	killCtx, kill := context.WithCancel(context.Background())
	go func() {
		select {
		case <-sigs:
			fmt.Fprintln(env.stderr, "raymond serve: killing the steps in flight")
			kill()
		case <-killCtx.Done():
		}
	}()
	d.Shutdown(killCtx)
	kill()
	shutCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = httpSrv.Shutdown(shutCtx) // event streams do not end by themselves
	fmt.Fprintln(env.stderr, "raymond serve: stopped; the runs it drove resume at its next start")
	return nil
}

// loopbackHost says whether host names the loopback interface only.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// serveHosts returns the Host header values the daemon bound to bound
// answers, asked for host: the address itself, localhost on loopback, and
// with remote the host asked for. A daemon listening on every interface
// (0.0.0.0, ::, or no host) also answers this machine's name and the
// addresses of its interfaces: those are what a remote browser or client
// names it by, and refusing them would leave --allow-remote unreachable
// from anywhere but loopback.
func serveHosts(bound, host string, remote bool) []string {
	hosts := []string{bound}
	h, port, err := net.SplitHostPort(bound)
	if err != nil {
		return hosts
	}
	if h == "127.0.0.1" || h == "::1" {
		hosts = append(hosts, net.JoinHostPort("localhost", port))
	}
	if !remote {
		return hosts
	}
	hosts = append(hosts, host)
	if ip := net.ParseIP(h); ip == nil || !ip.IsUnspecified() {
		return hosts
	}
	if name, err := os.Hostname(); err == nil && name != "" {
		hosts = append(hosts, name)
	}
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			hosts = append(hosts, n.IP.String(), net.JoinHostPort(n.IP.String(), port))
		}
	}
	return hosts
}

// pageHost is the host:port of the page's address for a daemon bound to
// bound: a daemon on every interface is shown at loopback, an address that
// works on this machine, rather than at 0.0.0.0 or [::], which no browser
// can open.
func pageHost(bound string) string {
	h, port, err := net.SplitHostPort(bound)
	if ip := net.ParseIP(h); err == nil && ip != nil && ip.IsUnspecified() {
		return net.JoinHostPort("127.0.0.1", port)
	}
	return bound
}

// serveRoots returns the folders to find workflows under: the flags', else
// the config's, else the project's workflows/ folder, else the project.
func serveRoots(p *project.Project, flags, config []string) ([]string, error) {
	roots := flags
	base, _ := os.Getwd()
	if len(roots) == 0 && len(config) > 0 {
		roots, base = config, p.Dir
	}
	if len(roots) == 0 {
		if fi, err := os.Stat(filepath.Join(p.Dir, "workflows")); err == nil && fi.IsDir() {
			return []string{filepath.Join(p.Dir, "workflows")}, nil
		}
		return []string{p.Dir}, nil
	}
	out := make([]string, 0, len(roots))
	for _, r := range roots {
		dir := expandHome(r)
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(base, dir)
		}
		fi, err := os.Stat(dir)
		if err != nil || !fi.IsDir() {
			return nil, &usageError{msg: fmt.Sprintf("--root %s: not a folder", r), hint: "Give folders that hold workflows."}
		}
		out = append(out, dir)
	}
	return out, nil
}

// expandHome replaces a leading ~/ with the home folder.
func expandHome(path string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return path
}

// newLogger returns the daemon's logger: text on a terminal, JSON
// otherwise, unless format says.
func newLogger(format string, w io.Writer) (*slog.Logger, error) {
	if format == "" {
		format = "json"
		if f, ok := w.(*os.File); ok && isTerminal(f) {
			format = "text"
		}
	}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	}
	return nil, fmt.Errorf("--log-format %s: give text or json", format)
}

// sdNotify tells systemd (Type=notify) about the daemon's state, when
// NOTIFY_SOCKET says where; elsewhere it does nothing.
func sdNotify(msg string) {
	addr := os.Getenv("NOTIFY_SOCKET")
	if addr == "" {
		return
	}
	if strings.HasPrefix(addr, "@") {
		addr = "\x00" + addr[1:] // an abstract socket
	}
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: addr, Net: "unixgram"})
	if err != nil {
		return
	}
	defer conn.Close()
	_, _ = conn.Write([]byte(msg))
}

// serveVersion is raymond's version as the API reports it.
func serveVersion() string {
	v, _ := buildVersion()
	return v
}
