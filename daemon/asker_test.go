package daemon

import (
	"errors"
	"testing"
)

func TestAsker(t *testing.T) {
	a := newAsker()
	// An ask this drive has not opened yet (a resumed run) is answered.
	if err := a.answer("ask_main_1", "red", nil); err != nil {
		t.Fatalf("first answer: %v", err)
	}
	if err := a.answer("ask_main_1", "blue", nil); !errors.Is(err, errAnswered) {
		t.Errorf("second answer: %v, want errAnswered", err)
	}
	if err := a.answer("ask_main_2", "green", nil); err != nil {
		t.Fatalf("another ask: %v", err)
	}
	if got := <-a.Answers(); got.AskID != "ask_main_1" || got.Text != "red" {
		t.Errorf("the run took %+v", got)
	}
	// The drive ends: what it did not take comes back, nothing more goes in.
	left := a.close()
	if len(left) != 1 || left[0].AskID != "ask_main_2" || left[0].Text != "green" {
		t.Errorf("left %+v, want the answer to ask_main_2", left)
	}
	if err := a.answer("ask_main_3", "x", nil); !errors.Is(err, errDriveEnd) {
		t.Errorf("after the end: %v, want errDriveEnd", err)
	}
}

func TestAskerFull(t *testing.T) {
	a := newAsker()
	for i := range askerBuffer {
		if err := a.answer(string(rune('a'+i%26))+string(rune('0'+i/26)), "x", nil); err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
	}
	if err := a.answer("one-more", "x", nil); !errors.Is(err, errBusy) {
		t.Errorf("answer past the buffer: %v, want errBusy", err)
	}
}
