package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"sync"
	"syscall"
)

// stopSignals are the signals that stop a run in two stages (cli.md
// "Signals"). SIGHUP is among them so that closing the terminal pauses the
// run instead of killing it mid-step; SIGQUIT (Ctrl-\) also writes every
// goroutine's stack to stderr first, for a person who wants to see where
// raymond is, without losing the steps in flight as Go's default handling
// (a dump, then exit) would.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// interrupts turns the stop signals into the two stages of stopping a run:
// the first closes quiesce, so that no step starts and the steps in flight
// finish (the Driver says so on its progress writer); the second cancels
// the returned context, which kills them. stop restores the default
// handling and must be called once the runs have been driven.
func interrupts(parent context.Context, stderr io.Writer) (ctx context.Context, quiesce <-chan struct{}, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	q := make(chan struct{})
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, stopSignals...)
	// Progress to a pipe whose reader is gone (raymond ... 2>&1 | tee log,
	// once the terminal closed) must not kill raymond with SIGPIPE: the
	// write fails and the run goes on. Notify, not Ignore: an ignored
	// signal would stay ignored in the claude processes started.
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		n := 0
		for {
			select {
			case sig := <-sigs:
				if sig == syscall.SIGQUIT {
					dumpGoroutines(stderr)
				}
				n++
				switch n {
				case 1:
					// The Driver says that steps in flight are finishing
					// and how to kill them.
					close(q)
				case 2:
					fmt.Fprintln(stderr, "raymond: killing the steps in flight")
					cancel()
				}
			case <-pipes:
			case <-done:
				return
			}
		}
	})
	var once sync.Once
	stop = func() {
		once.Do(func() {
			signal.Stop(sigs)
			signal.Stop(pipes)
			close(done)
			wg.Wait()
			cancel()
		})
	}
	return ctx, q, stop
}

// dumpGoroutines writes the stack of every goroutine to w, as Go does on
// SIGQUIT, between two lines that say what it is.
func dumpGoroutines(w io.Writer) {
	fmt.Fprintln(w, "raymond: SIGQUIT: the stacks of raymond's goroutines follow; the run is then stopped as by Ctrl-C")
	_ = pprof.Lookup("goroutine").WriteTo(w, 2)
	fmt.Fprintln(w, "raymond: end of the goroutine stacks")
}
