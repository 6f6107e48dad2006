package orchestrator

import (
	"os"
	"sync"
	"time"
)

// Clock is the time source of waits and back-off, so tests can run hours of
// waiting in no time.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// RealClock is the wall clock.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// After returns time.After(d).
func (RealClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// InstantClock is a clock on which waiting takes no time: After returns at
// once and moves the clock forward by the duration. It makes hours of
// usage-limit waits and retry back-offs instant in end-to-end tests
// (RAYMOND_TEST_CLOCK=instant) while every time shown stays consistent.
type InstantClock struct {
	mu     sync.Mutex
	offset time.Duration
}

// Now returns the wall clock plus the time skipped so far.
func (c *InstantClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

// After skips d and returns a channel that is ready at once.
func (c *InstantClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	c.offset += max(d, 0)
	now := time.Now().Add(c.offset)
	c.mu.Unlock()
	ch := make(chan time.Time, 1)
	ch <- now
	return ch
}

// clockFromEnv returns the clock of a Driver without one: the real clock,
// or an InstantClock when RAYMOND_TEST_CLOCK=instant. The variable exists
// for end-to-end tests of waits and back-offs, which must not sleep.
func clockFromEnv() Clock {
	if os.Getenv("RAYMOND_TEST_CLOCK") == "instant" {
		return &InstantClock{}
	}
	return RealClock{}
}
