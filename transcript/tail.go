package transcript

import (
	"bytes"
	"os"
)

// tailChunk is how much of a file dropTornTail reads at a time.
const tailChunk = 64 << 10

// dropTornTail truncates f after its last newline. A run killed in the middle
// of a write can leave part of a record there; the resumed run's first record
// would otherwise be glued to it, turning two lines into one that does not
// decode.
func dropTornTail(f *os.File) error {
	info, err := f.Stat()
	if err != nil {
		return err
	}
	size := info.Size()
	if size == 0 {
		return nil
	}
	buf := make([]byte, min(size, tailChunk))
	for end := size; end > 0; {
		n := min(end, int64(len(buf)))
		off := end - n
		if _, err := f.ReadAt(buf[:n], off); err != nil {
			return err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			if keep := off + int64(i) + 1; keep < size {
				return f.Truncate(keep)
			}
			return nil
		}
		end = off
	}
	return f.Truncate(0)
}

// padTail makes a non-empty f end in a blank line, so that the entry a run
// killed in the middle of a write left half-written stays readable and apart
// from the next one.
func padTail(f *os.File) error {
	info, err := f.Stat()
	if err != nil {
		return err
	}
	size := info.Size()
	if size == 0 {
		return nil
	}
	n := min(size, 2)
	last := make([]byte, n)
	if _, err := f.ReadAt(last, size-n); err != nil {
		return err
	}
	var pad string
	switch {
	case bytes.HasSuffix(last, []byte("\n\n")):
		return nil
	case bytes.HasSuffix(last, []byte("\n")):
		pad = "\n"
	default:
		pad = "\n\n"
	}
	_, err = f.WriteString(pad)
	return err
}
