package vt

import (
	"strconv"
	"testing"
)

// TestAppendDecIsStrconvs: the digit-by-digit decimal of SGR numbers writes
// what strconv does, inside 0..255 and outside it.
func TestAppendDecIsStrconvs(t *testing.T) {
	for v := int64(-300); v <= 1300; v++ {
		if got, want := string(appendDec([]byte("x"), v)), "x"+strconv.FormatInt(v, 10); got != want {
			t.Fatalf("appendDec(%d) = %q, want %q", v, got, want)
		}
	}
}
