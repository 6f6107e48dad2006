package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// interrupts turns SIGINT and SIGTERM into the two stages of stopping a run
// (cli.md "Signals"): the first closes quiesce, so that no step starts and
// the steps in flight finish (the Driver says so on its progress writer); the
// second cancels the returned context, which kills them. stop restores the default handling and must be called once the
// runs have been driven.
func interrupts(parent context.Context, stderr io.Writer) (ctx context.Context, quiesce <-chan struct{}, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	q := make(chan struct{})
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		n := 0
		for {
			select {
			case <-sigs:
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
			case <-done:
				return
			}
		}
	})
	var once sync.Once
	stop = func() {
		once.Do(func() {
			signal.Stop(sigs)
			close(done)
			wg.Wait()
			cancel()
		})
	}
	return ctx, q, stop
}
