package main

import (
	"context"
	"log/slog"
	"os"
	"strconv"
	"time"
)

// watchdogEvery is how often raymond serve pings systemd's watchdog: half
// the interval systemd asks for (WATCHDOG_USEC), 0 when it asks for none or
// asks another process (WATCHDOG_PID).
func watchdogEvery() time.Duration {
	if pid := os.Getenv("WATCHDOG_PID"); pid != "" && pid != strconv.Itoa(os.Getpid()) {
		return 0
	}
	usec, err := strconv.ParseInt(os.Getenv("WATCHDOG_USEC"), 10, 64)
	if err != nil || usec <= 0 {
		return 0
	}
	return time.Duration(usec) * time.Microsecond / 2
}

// watchdog pings systemd's watchdog (WATCHDOG=1) every every until ctx ends,
// each time only once alive has answered: a daemon whose loops hang stops
// pinging, and systemd restarts it. A bare ticker would ping for a hung
// daemon too.
func watchdog(ctx context.Context, every time.Duration, alive func(context.Context) error, log *slog.Logger) {
	if every <= 0 {
		return
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		actx, cancel := context.WithTimeout(ctx, 2*every)
		err := alive(actx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			log.Error("the daemon does not answer; not pinging systemd's watchdog", "err", err)
		default:
			sdNotify("WATCHDOG=1")
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
