package transcript

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// The tests use the standard library only: testify cannot be built in this
// module yet (go.sum lacks the yaml package its assert package needs).

func ptr[T any](v T) *T { return &v }

// must fails the test at once if err is not nil.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// equal reports a difference between got and want, without stopping.
func equal[T any](t testing.TB, got, want T, what string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got: %#v\nwant: %#v", what, got, want)
	}
}

// readFile returns the content of the file name of dir.
func readFile(t testing.TB, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	must(t, err)
	return string(b)
}

// noWarn is a warn func that fails the test.
func noWarn(t testing.TB) func(error) {
	return func(err error) {
		t.Errorf("unexpected warning: %v", err)
	}
}
