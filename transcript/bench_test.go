package transcript

import (
	"fmt"
	"strings"
	"testing"
)

func BenchmarkLine(b *testing.B) {
	for _, size := range []int{200, 16 << 10, 4 << 20} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			w := Open(b.TempDir(), func(err error) { b.Fatal(err) })
			defer w.Close()
			s := w.Step("main_A_001")
			defer s.Close(Meta{})
			line := []byte(strings.Repeat("x", size))
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				s.Line(line)
			}
		})
	}
}

func BenchmarkEvent(b *testing.B) {
	w := Open(b.TempDir(), func(err error) { b.Fatal(err) })
	defer w.Close()
	e := fullEvent()
	b.ReportAllocs()
	for b.Loop() {
		w.Event(e)
	}
}

func BenchmarkTransition(b *testing.B) {
	w := Open(b.TempDir(), func(err error) { b.Fatal(err) })
	defer w.Close()
	tr := goldenTransitions[1]
	b.ReportAllocs()
	for b.Loop() {
		w.Transition(tr)
	}
}
