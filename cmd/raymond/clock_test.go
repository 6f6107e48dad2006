package main

import (
	"os"
	"strings"
	"sync"
	"time"
)

// fileClock is the time written in a file, in RFC 3339: a script moves the
// daemon's schedules on by writing it (RAYMOND_TEST_SCHEDULE_CLOCK=FILE). Until the
// file holds a time, it is the real clock's.
type fileClock struct {
	path string

	mu      sync.Mutex
	last    time.Time // the last time read
	waiters []fileWaiter
	polling bool
}

type fileWaiter struct {
	at time.Time
	ch chan time.Time
}

func newFileClock(path string) *fileClock { return &fileClock{path: path} }

// Now returns the file's time; a file being written (empty, or half) gives
// the last time read.
func (c *fileClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.read()
}

func (c *fileClock) read() time.Time {
	data, err := os.ReadFile(c.path)
	if err == nil {
		if t, err := time.Parse(time.RFC3339, strings.TrimSpace(string(data))); err == nil {
			c.last = t
		}
	}
	if c.last.IsZero() {
		return time.Now()
	}
	return c.last
}

// After fires once the file's time has moved d past now. One goroutine
// looks at the file for every waiter, for as long as the process lives: it
// is a test's clock.
func (c *fileClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	now := c.read()
	if d <= 0 {
		ch <- now
		return ch
	}
	c.waiters = append(c.waiters, fileWaiter{at: now.Add(d), ch: ch})
	if !c.polling {
		c.polling = true
		go c.poll()
	}
	return ch
}

func (c *fileClock) poll() {
	for {
		time.Sleep(5 * time.Millisecond)
		c.mu.Lock()
		now := c.read()
		kept := c.waiters[:0]
		for _, w := range c.waiters {
			if now.Before(w.at) {
				kept = append(kept, w)
			} else {
				w.ch <- now
			}
		}
		c.waiters = kept
		c.mu.Unlock()
	}
}
