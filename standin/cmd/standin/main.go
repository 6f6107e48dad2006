// Command standin serves the stand-in for the Anthropic Messages API on a
// loopback address, for running the real Claude Code CLI without a key or
// the network:
//
//	standin -rules rules.json -log requests.jsonl -addr-file addr
//	ANTHROPIC_BASE_URL=http://$(cat addr) ANTHROPIC_API_KEY=placeholder claude -p …
//
// It prints its address on stdout, and into -addr-file when given, once it
// listens; it serves until interrupted.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"raymond/standin"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "standin:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("standin", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "the loopback `address` to listen on")
	rulesPath := fs.String("rules", "", "the rules `file` (JSON); none: every main turn is an error")
	logPath := fs.String("log", "", "append each request as a JSON line to this `file`")
	addrFile := fs.String("addr-file", "", "write the address listened on to this `file`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	rules := &standin.Rules{}
	if *rulesPath != "" {
		var err error
		if rules, err = standin.LoadRules(*rulesPath); err != nil {
			return err
		}
	}
	var log io.Writer
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		log = f
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	if *addrFile != "" {
		if err := os.WriteFile(*addrFile, []byte(ln.Addr().String()+"\n"), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "http://%s\n", ln.Addr())
	srv := &http.Server{Handler: standin.New(rules, log)}
	stop := context.AfterFunc(ctx, func() { _ = srv.Close() })
	defer stop()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
