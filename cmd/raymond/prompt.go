package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"raymond/orchestrator"
	"raymond/project"
	"raymond/state"
)

// askMode is the --on-ask mode a drive uses (protocol.md §15.3): stored is
// the run's (as given: auto, prompt, pause, reject; "" is auto), and auto
// is prompt when stdin and stderr are terminals, else pause. A drive that
// cannot put questions to anyone (recover drives several runs at once)
// passes canPrompt false: prompt and auto are then pause.
func askMode(stored string, canPrompt bool, stdin io.Reader, stderr io.Writer) string {
	switch stored {
	case orchestrator.AskReject:
		return orchestrator.AskReject
	case orchestrator.AskPause:
		return orchestrator.AskPause
	case orchestrator.AskPrompt:
		if canPrompt {
			return orchestrator.AskPrompt // without a terminal too: it reads stdin lines anyway
		}
		return orchestrator.AskPause
	}
	if canPrompt && isTerminal(stdin) && isTerminal(stderr) {
		return orchestrator.AskPrompt
	}
	return orchestrator.AskPause
}

// isTerminal reports whether x is a file that is a terminal.
func isTerminal(x any) bool {
	f, ok := x.(*os.File)
	return ok && isTerminalFile(f)
}

// gate is the writer of progress lines while a person may be asked: while
// it is held, lines are kept and written when it is released, so that they
// do not break into a question being typed.
type gate struct {
	mu   sync.Mutex
	w    io.Writer
	held bool
	kept bytes.Buffer
}

func (g *gate) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held {
		return g.kept.Write(p)
	}
	return g.w.Write(p)
}

// hold keeps the lines written from now on, and writes s (the question)
// through.
func (g *gate) hold(s string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.held = true
	_, _ = io.WriteString(g.w, s)
}

// say writes s through, held or not.
func (g *gate) say(s string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, _ = io.WriteString(g.w, s)
}

// release writes s and then the lines kept, and lets lines through again.
func (g *gate) release(s string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, _ = io.WriteString(g.w, s)
	if g.held {
		_, _ = g.w.Write(g.kept.Bytes())
		g.kept.Reset()
	}
	g.held = false
}

// prompter puts a run's asks to the person at the terminal (--on-ask
// prompt): one at a time, oldest first, the question on stderr and one
// line of stdin as the answer, while the other agents run. It is an
// orchestrator.Asker.
type prompter struct {
	in      io.Reader
	out     *gate
	answers chan orchestrator.Answer
	// withdraw, once closed (the first Ctrl-C), withdraws the question
	// open and asks no more; done, once closed, ends the prompter.
	withdraw <-chan struct{}
	done     chan struct{}
	wake     chan struct{}
	wg       sync.WaitGroup

	mu    sync.Mutex
	queue []queued
	seen  map[string]bool
	lines chan string // nil until the first question: stdin is read only then
}

// queued is an ask waiting to be put.
type queued struct {
	agent string
	ask   state.Ask
}

// newPrompter returns a prompter reading answers from in and writing
// questions, and the progress lines it holds while one is open, to out.
func newPrompter(in io.Reader, out *gate, withdraw <-chan struct{}) *prompter {
	p := &prompter{in: in, out: out, answers: make(chan orchestrator.Answer), withdraw: withdraw,
		done: make(chan struct{}), wake: make(chan struct{}, 1), seen: map[string]bool{}}
	p.wg.Go(p.run)
	return p
}

// Open queues an ask; it does not block.
func (p *prompter) Open(agent string, k state.Ask) {
	p.mu.Lock()
	if !p.seen[k.ID] {
		p.seen[k.ID] = true
		p.queue = append(p.queue, queued{agent: agent, ask: k})
		slices.SortStableFunc(p.queue, func(x, y queued) int { return x.ask.AskedAt.Compare(y.ask.AskedAt) })
	}
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Answers delivers the answers; it is closed at the end of stdin.
func (p *prompter) Answers() <-chan orchestrator.Answer { return p.answers }

// Close ends the prompter once the drive is over: a question still open
// is dropped, and the progress lines it held are written.
func (p *prompter) Close() {
	close(p.done)
	p.wg.Wait()
	p.out.release("")
}

// next returns the oldest queued ask, waiting for one; ok is false when
// the prompter must stop.
func (p *prompter) next() (q queued, ok bool) {
	for {
		p.mu.Lock()
		if len(p.queue) > 0 {
			q = p.queue[0]
			p.mu.Unlock()
			return q, true
		}
		p.mu.Unlock()
		select {
		case <-p.wake:
		case <-p.withdraw:
			return q, false
		case <-p.done:
			return q, false
		}
	}
}

// run puts the asks one at a time until stdin ends, the questions are
// withdrawn or the drive is over.
func (p *prompter) run() {
	for {
		q, ok := p.next()
		if !ok {
			return
		}
		if p.lines == nil {
			p.lines = readLines(p.in)
		}
		p.out.hold(question(q))
		for answered := false; !answered; {
			select {
			case line, ok := <-p.lines:
				if !ok {
					p.out.release(fmt.Sprintf("\nraymond: no more input: %s stays pending\n", q.ask.ID))
					close(p.answers)
					return
				}
				if line == "" {
					p.out.say("answer (an empty line asks again)> ")
					continue
				}
				p.mu.Lock()
				p.queue = p.queue[1:]
				p.mu.Unlock()
				p.out.release("")
				select {
				case p.answers <- orchestrator.Answer{AskID: q.ask.ID, Text: line}:
				case <-p.done:
					return
				}
				answered = true
			case <-p.withdraw:
				p.out.release(fmt.Sprintf("\nraymond: question withdrawn: %s stays pending\n", q.ask.ID))
				return
			case <-p.done:
				return
			}
		}
	}
}

// question words an ask for the terminal: who asks, from which state,
// until when, then the question and the prompt for the answer.
func question(q queued) string {
	k := q.ask
	var b strings.Builder
	fmt.Fprintf(&b, "\n[%s] asks %s at %s", q.agent, k.ID, k.State)
	if k.Deadline != nil {
		fmt.Fprintf(&b, " (answer by %s", k.Deadline.Local().Format(time.DateTime))
		if k.TimeoutNext != "" {
			fmt.Fprintf(&b, ", else %s", k.TimeoutNext)
		}
		b.WriteString(")")
	}
	b.WriteString(":\n")
	for l := range strings.SplitSeq(strings.TrimRight(k.Question, "\n"), "\n") {
		b.WriteString("  " + l + "\n")
	}
	b.WriteString("answer> ")
	return b.String()
}

// readLines reads in line by line, each without its line ending, and
// closes the channel at the end of in. Its goroutine blocks on in until
// then: a terminal cannot be read with a deadline, so it ends with the
// process, having read at most one line more than was asked for.
func readLines(in io.Reader) chan string {
	lines := make(chan string)
	go func() {
		defer close(lines)
		r := bufio.NewReader(in)
		for {
			line, err := r.ReadString('\n')
			if line != "" || err == nil {
				lines <- trimLineEnd(line)
			}
			if err != nil {
				return
			}
		}
	}()
	return lines
}

// trimLineEnd removes the line ending of a line read from a terminal: it
// is not part of the answer.
func trimLineEnd(s string) string {
	s = strings.TrimSuffix(s, "\n")
	return strings.TrimSuffix(s, "\r")
}

// recordInput is resume --input: it records text as the answer to the ask
// askID names, or the oldest pending one, before the run is driven.
func recordInput(r *state.Run, askID, text string) error {
	if _, err := project.RecordAnswer(r, askID, text, time.Now()); err != nil {
		return &usageError{msg: "--input: " + err.Error(),
			hint: fmt.Sprintf("'raymond status %s' shows the run's pending asks.", r.WorkflowID)}
	}
	return nil
}
