package vt

import (
	"testing"
)

// FuzzWrite feeds arbitrary bytes (not only well-formed sequences): nothing
// may panic, the cursor stays on screen, rendering works, and cutting the
// input in two writes at any point gives the same result as one write.
func FuzzWrite(f *testing.F) {
	for _, s := range diffCorpus {
		f.Add([]byte(s), uint8(7))
	}
	f.Add([]byte("\x1b[99999;99999H\x1b[?1049h\x1b[4h漢\u0301\x1b]8;;x\a\x1bP1$q\x1b\\\x9b\xff\xfe"), uint8(3))
	f.Fuzz(func(t *testing.T, in []byte, cut uint8) {
		a := New(13, 5, WithScrollback(20))
		_, _ = a.Write(in)
		b := New(13, 5, WithScrollback(20))
		k := min(int(cut), len(in))
		_, _ = b.Write(in[:k])
		_, _ = b.Write(in[k:])
		if da, db := dump(a), dump(b); da != db {
			t.Fatalf("one write and two writes (cut at %d) differ:\n%s\n---\n%s", k, da, db)
		}
		for _, sz := range [][2]int{{7, 3}, {20, 8}, {1, 1}} {
			a.Resize(sz[0], sz[1])
			c := a.Cursor()
			if c.X < 0 || c.X >= sz[0] || c.Y < 0 || c.Y >= sz[1] {
				t.Fatalf("cursor %+v outside %dx%d", c, sz[0], sz[1])
			}
			_ = dump(a)
			_, _ = a.Write(in)
		}
	})
}
