package proc

import "testing"

func TestTail(t *testing.T) {
	tl := NewTail(8)
	for _, s := range []string{"abc", "defg", "hij"} {
		_, _ = tl.Write([]byte(s))
	}
	eq(t, "tail", tl.String(), "cdefghij")
	_, _ = tl.Write([]byte("0123456789"))
	eq(t, "tail after a long write", tl.String(), "23456789")

	// A cut through a multi-byte character drops the broken start.
	tl = NewTail(5)
	_, _ = tl.Write([]byte("aé€z")) // a, é (2 bytes), € (3 bytes), z
	eq(t, "tail at a rune boundary", tl.String(), "€z")
}
