package claude

import (
	"math"
	"reflect"
	"testing"
)

// testify cannot be built in this module yet (its go.sum lacks
// go.yaml.in/yaml/v3), so the tests use these few checks instead.

// eq reports a difference between got and want, compared deeply.
func eq[T any](t testing.TB, what string, got, want T) bool {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", what, got, want)
		return false
	}
	return true
}

// near reports a float that differs from want by more than 1e-12.
func near(t testing.TB, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// must stops the test on an unexpected error.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
