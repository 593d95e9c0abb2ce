package vt

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	xvt "github.com/charmbracelet/x/vt"
)

// Benchmark workloads, generated on first use (never committed).
const (
	benchCols, benchRows = 200, 50
	logStreamSize        = 50 << 20
	repaintStreamSize    = 20 << 20
)

var (
	logOnce, repaintOnce sync.Once
	logData, repaintData []byte
)

func logStream() []byte {
	logOnce.Do(func() { logData = GenLog(logStreamSize) })
	return logData
}

func repaintStream() []byte {
	repaintOnce.Do(func() { repaintData = GenRepaint(repaintStreamSize, benchCols, benchRows) })
	return repaintData
}

// benchEmulator times Write over data. Besides wall time (MB/s) it reports
// cpu-MB/s, the rate over the thread's CPU time, which other processes on a
// shared machine disturb far less: compare that one across runs.
func benchEmulator(b *testing.B, data []byte) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	e := New(benchCols, benchRows, WithScrollback(10000))
	_, _ = e.Write(data) // warm: scrollback full, tables filled
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	c0 := threadCPU()
	for b.Loop() {
		_, _ = e.Write(data)
	}
	if cpu := threadCPU() - c0; cpu > 0 {
		b.ReportMetric(float64(len(data))*float64(b.N)/1e6/cpu.Seconds(), "cpu-MB/s")
	}
}

// threadCPU is the CPU time of the calling thread.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

func BenchmarkLogStream(b *testing.B)     { benchEmulator(b, logStream()) }
func BenchmarkRepaintStream(b *testing.B) { benchEmulator(b, repaintStream()) }

func benchXVT(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		e := xvt.NewEmulator(benchCols, benchRows)
		go func() { _, _ = io.Copy(io.Discard, e) }()
		_, _ = e.Write(data)
		_ = e.Close()
	}
}

func BenchmarkXVTLogStream(b *testing.B)     { benchXVT(b, logStream()) }
func BenchmarkXVTRepaintStream(b *testing.B) { benchXVT(b, repaintStream()) }

// BenchmarkRender renders a full 200×50 styled frame into a reused buffer.
func BenchmarkRender(b *testing.B) {
	e := New(benchCols, benchRows)
	_, _ = e.Write(logStream()[:4<<20])
	dst := make([]byte, 0, 64<<10)
	b.ReportAllocs()
	for b.Loop() {
		dst = dst[:0]
		for y := 0; y < benchRows; y++ {
			dst = e.AppendLine(dst, y, true)
		}
	}
}

// BenchmarkRenderRepaint renders a frame of the repaint stream (denser
// styles than the log).
func BenchmarkRenderRepaint(b *testing.B) {
	e := New(benchCols, benchRows)
	_, _ = e.Write(repaintStream()[:2<<20])
	dst := make([]byte, 0, 64<<10)
	b.ReportAllocs()
	for b.Loop() {
		dst = dst[:0]
		for y := 0; y < benchRows; y++ {
			dst = e.AppendLine(dst, y, true)
		}
	}
}

func writeStreamFile(b *testing.B, data []byte) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "stream")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.Fatalf("write stream file: %v", err)
	}
	return path
}

// ptyRun runs `cat path` in a 200×50 PTY and hands every read to sink. As a
// pane does, a reader goroutine drains the PTY into a small pool of buffers
// while sink (the emulator) consumes them, so cat never waits on the
// emulator unless the emulator is the slower of the two.
func ptyRun(b *testing.B, path string, sink func([]byte)) {
	b.Helper()
	cmd := exec.Command("cat", path)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: benchCols, Rows: benchRows})
	if err != nil {
		b.Fatalf("start cat in pty: %v", err)
	}
	const nbuf = 4
	free := make(chan []byte, nbuf)
	full := make(chan []byte, nbuf)
	for range nbuf {
		free <- make([]byte, 64<<10)
	}
	go func() {
		defer close(full)
		for {
			// Fill one buffer with as many reads as come while the consumer
			// is busy; hand it over as soon as the consumer can take it.
			buf := <-free
			n := 0
			for {
				k, err := f.Read(buf[n:])
				n += k
				if err != nil {
					if n > 0 {
						full <- buf[:n]
					}
					return // EIO once cat has exited and the output is drained
				}
				if n > len(buf)-4096 {
					full <- buf[:n]
					break
				}
				select {
				case full <- buf[:n]:
				default:
					continue
				}
				break
			}
		}
	}()
	for p := range full {
		sink(p)
		free <- p[:cap(p)]
	}
	_ = f.Close()
	_ = cmd.Wait()
}

// BenchmarkPTY is the end-to-end check: `cat` of the log stream in a real
// PTY, read as a pane reads, once discarded (the drain rate, the ceiling) and
// once fed to the emulator, alternating in each iteration so both see the
// same machine. It reports both rates and emulator/drain in percent.
func BenchmarkPTY(b *testing.B) {
	data := logStream()
	path := writeStreamFile(b, data)
	b.SetBytes(int64(len(data)))
	e := New(benchCols, benchRows)
	var drain, emu time.Duration
	for b.Loop() {
		t0 := time.Now()
		ptyRun(b, path, func([]byte) {})
		t1 := time.Now()
		ptyRun(b, path, func(p []byte) { _, _ = e.Write(p) })
		drain += t1.Sub(t0)
		emu += time.Since(t1)
	}
	mb := float64(len(data)) * float64(b.N) / 1e6
	b.ReportMetric(mb/drain.Seconds(), "drain-MB/s")
	b.ReportMetric(mb/emu.Seconds(), "emulator-MB/s")
	b.ReportMetric(100*drain.Seconds()/emu.Seconds(), "emulator/drain-%")
}

// BenchmarkTmux times tmux running `cat` of the log stream in a detached
// 200×50 session until cat is done.
func BenchmarkTmux(b *testing.B) {
	if _, err := exec.LookPath("tmux"); err != nil {
		b.Skip("tmux not found")
	}
	data := logStream()
	path := writeStreamFile(b, data)
	b.SetBytes(int64(len(data)))
	dir := b.TempDir()
	n := 0
	for b.Loop() {
		// A fresh server each time: reusing a socket races with the
		// previous server's exit.
		n++
		sock := filepath.Join(dir, fmt.Sprintf("s%d", n))
		cmd := exec.Command("tmux", "-S", sock, "-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "50",
			"cat "+path+"; tmux -S "+sock+" wait-for -S done; sleep 30")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("tmux new-session: %v: %s", err, out)
		}
		if out, err := exec.Command("tmux", "-S", sock, "wait-for", "done").CombinedOutput(); err != nil {
			b.Fatalf("tmux wait-for: %v: %s", err, out)
		}
		_ = exec.Command("tmux", "-S", sock, "kill-server").Run()
	}
}

func TestGeneratorsDeterministic(t *testing.T) {
	a, b := GenLog(1<<20), GenLog(1<<20)
	if !bytes.Equal(a, b) {
		t.Fatal("GenLog differs between calls")
	}
	r1, r2 := GenRepaint(1<<20, 200, 50), GenRepaint(1<<20, 200, 50)
	if !bytes.Equal(r1, r2) {
		t.Fatal("GenRepaint differs between calls")
	}
	if bytes.IndexByte(r1, '\n') >= 0 {
		t.Fatal("repaint stream contains a line feed")
	}
}
