package main

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/orchestrator"
	"raymond/state"
)

// lockedBuffer is a bytes.Buffer safe for the prompter's goroutine and the
// test's.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestPrompter(t *testing.T) {
	at := time.Date(2026, 11, 21, 14, 0, 0, 0, time.UTC)
	in, typed := io.Pipe()
	screen := &lockedBuffer{}
	out := &gate{w: screen}
	p := newPrompter(in, out, make(chan struct{}))

	// Opened newest first, asked oldest first; opened again, asked once.
	p.Open("main_w1", state.Ask{ID: "ask_main_w1_2", Question: "Second?", State: "B.md", AskedAt: at.Add(time.Second)})
	p.Open("main", state.Ask{ID: "ask_main_1", Question: "First?", State: "A.md", AskedAt: at})
	p.Open("main", state.Ask{ID: "ask_main_1", Question: "First?", State: "A.md", AskedAt: at})

	go func() {
		_, _ = io.WriteString(typed, "\r\n")
		_, _ = io.WriteString(typed, "one\r\n")
		_, _ = io.WriteString(typed, "two\n")
		_ = typed.Close()
	}()
	var got []orchestrator.Answer
	for a := range p.Answers() {
		got = append(got, a)
		if len(got) == 1 {
			// While the second question is open, progress is held.
			for !strings.Contains(screen.String(), "[main_w1] asks") {
				time.Sleep(time.Millisecond)
			}
			_, _ = io.WriteString(out, "[other] progress\n")
		}
		if len(got) == 2 {
			break // no ask is left open: the prompter reads no more
		}
	}
	p.Close()
	assert.Equal(t, []orchestrator.Answer{{AskID: "ask_main_1", Text: "one"}, {AskID: "ask_main_w1_2", Text: "two"}}, got)
	s := screen.String()
	assert.Equal(t, 1, strings.Count(s, "[main] asks ask_main_1 at A.md:\n  First?\n"))
	assert.Contains(t, s, "answer (an empty line asks again)> ")
	second := strings.Index(s, "[main_w1] asks ask_main_w1_2 at B.md:")
	require.Greater(t, second, 0)
	assert.Greater(t, strings.Index(s, "[other] progress"), second, "progress is written once the question is answered")
}

func TestPrompterEndOfInput(t *testing.T) {
	screen := &lockedBuffer{}
	p := newPrompter(strings.NewReader(""), &gate{w: screen}, make(chan struct{}))
	p.Open("main", state.Ask{ID: "ask_main_1", Question: "Q?"})
	_, open := <-p.Answers()
	assert.False(t, open, "end of input closes Answers")
	p.Close()
	assert.Contains(t, screen.String(), "no more input: ask_main_1 stays pending")
}

func TestPrompterWithdraw(t *testing.T) {
	in, typed := io.Pipe()
	defer typed.Close()
	screen := &lockedBuffer{}
	out := &gate{w: screen}
	withdraw := make(chan struct{})
	p := newPrompter(in, out, withdraw)
	p.Open("main", state.Ask{ID: "ask_main_1", Question: "Q?"})
	for !strings.Contains(screen.String(), "answer> ") {
		time.Sleep(time.Millisecond)
	}
	_, _ = io.WriteString(out, "held\n")
	close(withdraw)
	p.Close()
	s := screen.String()
	assert.Contains(t, s, "question withdrawn: ask_main_1 stays pending")
	assert.Greater(t, strings.Index(s, "held"), strings.Index(s, "withdrawn"))
}

func TestAskMode(t *testing.T) {
	// Without terminals, auto is pause; prompt stays prompt unless nobody
	// can be asked (recover).
	for _, tt := range []struct {
		stored    string
		canPrompt bool
		want      string
	}{
		{"", true, "pause"},
		{"auto", true, "pause"},
		{"prompt", true, "prompt"},
		{"prompt", false, "pause"},
		{"pause", true, "pause"},
		{"reject", false, "reject"},
	} {
		assert.Equal(t, tt.want, askMode(tt.stored, tt.canPrompt, strings.NewReader(""), io.Discard), "%q %v", tt.stored, tt.canPrompt)
	}
}
