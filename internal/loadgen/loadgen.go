// Package loadgen is the busy pane of the screen benchmarks: a program that
// writes coloured log lines into its terminal at a paced rate, as a worker
// CLI streaming its log does. tui's BenchmarkScreen and cmd/cockpit's
// BenchmarkAttachedBusy run it as their pane programs.
package loadgen

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"
)

// Lines are 4,096 coloured log lines, made once and cycled, so the writer
// spends its CPU writing, not formatting: a benchmark measures the reader.
func Lines() []byte {
	levels := []string{"\x1b[32mINFO\x1b[0m", "\x1b[33mWARN\x1b[0m", "\x1b[31;1mERROR\x1b[0m", "\x1b[36mDEBUG\x1b[0m"}
	var text []byte
	for seq := range 4096 {
		text = fmt.Appendf(text, "\x1b[2m12:%02d:%02d.%03d\x1b[0m %s \x1b[1mworker\x1b[0m=%d seq=%d msg=\x1b[35mprocessing chunk\x1b[0m of the task, %d items left\r\n",
			seq/60%60, seq%60, seq%1000, levels[seq%len(levels)], os.Getpid()%100, seq, 1000000-seq)
	}
	return text
}

// Write writes Lines to w at rate bytes a second in 10 ms slices, adding
// what each write took to written, until a write fails. A reader slower
// than rate holds it back (writes block), and it does not burst to catch
// up afterwards.
func Write(w io.Writer, rate int, written *atomic.Int64) error {
	text := Lines()
	const slice = 10 * time.Millisecond
	perSlice := max(rate/int(time.Second/slice), 1)
	start := time.Now()
	off := 0
	buf := make([]byte, 0, perSlice)
	for tick := 1; ; tick++ {
		buf = buf[:0]
		for len(buf) < perSlice {
			k := min(perSlice-len(buf), len(text)-off)
			buf = append(buf, text[off:off+k]...)
			off = (off + k) % len(text)
		}
		n, err := w.Write(buf)
		written.Add(int64(n))
		if err != nil {
			return err
		}
		d := time.Until(start.Add(time.Duration(tick) * slice))
		switch {
		case d > 0:
			time.Sleep(d)
		case d < -100*time.Millisecond:
			// Held back by a slow reader: do not burst to catch up.
			start = time.Now().Add(-time.Duration(tick) * slice)
		}
	}
}

// Run is the pane program: it writes at rate bytes a second to stdout
// (Write) and keeps how much it wrote in the file path — every 100 ms, and
// once more when a signal arrives on stop, before it exits 0. A benchmark
// reads the files back with Total.
func Run(rate int, path string, stop <-chan os.Signal) {
	var written atomic.Int64
	save := func() { _ = os.WriteFile(path, strconv.AppendInt(nil, written.Load(), 10), 0o600) }
	go func() {
		for range time.Tick(100 * time.Millisecond) {
			save()
		}
	}()
	go func() {
		<-stop
		save()
		os.Exit(0)
	}()
	_ = Write(os.Stdout, rate, &written)
}

// CountPath is the count file of generator i in dir.
func CountPath(dir string, i int) string {
	return filepath.Join(dir, "gen-"+strconv.Itoa(i))
}

// Total sums what generators 0…n-1 of dir wrote so far.
func Total(dir string, n int) int64 {
	var sum int64
	for i := range n {
		data, _ := os.ReadFile(CountPath(dir, i))
		v, _ := strconv.ParseInt(string(data), 10, 64)
		sum += v
	}
	return sum
}
