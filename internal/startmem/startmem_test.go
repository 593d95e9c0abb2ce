package startmem

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestHeapIsOneHugePage checks, in this test binary (whose init ran the
// package's like the cockpit's), that the kernel collapsed the 2 MB of the
// heap the allocator was filling into one huge page, and that the page is
// still one in /proc/self/smaps.
func TestHeapIsOneHugePage(t *testing.T) {
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		if Errno != -1 {
			t.Fatalf("Errno = %d on %s/%s, want -1 (not attempted)", Errno, runtime.GOOS, runtime.GOARCH)
		}
		t.Skipf("the collapse is only attempted on linux/amd64 and linux/arm64, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	if mode := thpMode(t); mode != "always" && mode != "madvise" {
		t.Skipf("transparent huge pages are %q on this kernel (/sys/kernel/mm/transparent_hugepage/enabled); Errno = %d", mode, Errno)
	}
	if strings.Contains(os.Getenv("GODEBUG"), "disablethp=1") {
		if Errno != 22 { // EINVAL: the runtime marked the heap MADV_NOHUGEPAGE
			t.Fatalf("with GODEBUG=disablethp=1 the collapse answered errno %d, want 22 (EINVAL: refused)", Errno)
		}
		return
	}
	if Errno != 0 {
		t.Fatalf("MADV_COLLAPSE of the heap's first 2 MB: errno %d", Errno)
	}
	addr := uintptr(unsafe.Pointer(anchor))
	huge, ok := anonHugeKB(t, addr)
	if !ok {
		t.Fatalf("no mapping in /proc/self/smaps holds the anchor at %#x", addr)
	}
	if huge < hugePage>>10 {
		t.Fatalf("the heap mapping at %#x has AnonHugePages %d kB, want at least %d kB", addr, huge, hugePage>>10)
	}
}

// TestDisableTHPTurnsItOff runs the test above in a child with
// GODEBUG=disablethp=1, the runtime's switch for huge pages on the heap: the
// kernel must refuse the collapse there.
func TestDisableTHPTurnsItOff(t *testing.T) {
	// The child runs TestHeapIsOneHugePage alone (-test.run), so it does
	// not start a child of its own.
	cmd := exec.Command(os.Args[0], "-test.run=^TestHeapIsOneHugePage$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "GODEBUG=disablethp=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestHeapIsOneHugePage") && !strings.Contains(string(out), "--- SKIP: TestHeapIsOneHugePage") {
		t.Fatalf("TestHeapIsOneHugePage under GODEBUG=disablethp=1: %v\n%s", err, out)
	}
}

func thpMode(t *testing.T) string {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		return "absent (" + err.Error() + ")"
	}
	for _, f := range strings.Fields(string(b)) {
		if strings.HasPrefix(f, "[") {
			return strings.Trim(f, "[]")
		}
	}
	t.Fatalf("unreadable THP mode %q", b)
	return ""
}

// anonHugeKB reads the AnonHugePages of the mapping that holds addr.
func anonHugeKB(t *testing.T, addr uintptr) (int, bool) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if lo, hi, isRange := strings.Cut(fields[0], "-"); isRange && !strings.HasSuffix(fields[0], ":") {
			l, err1 := strconv.ParseUint(lo, 16, 64)
			h, err2 := strconv.ParseUint(hi, 16, 64)
			in = err1 == nil && err2 == nil && uint64(addr) >= l && uint64(addr) < h
			continue
		}
		if in && fields[0] == "AnonHugePages:" && len(fields) >= 2 {
			kb, err := strconv.Atoi(fields[1])
			if err != nil {
				t.Fatalf("AnonHugePages %q: %v", fields[1], err)
			}
			return kb, true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(fmt.Errorf("read /proc/self/smaps: %w", err))
	}
	return 0, false
}

// TestGrowStackMovesTheStackOnce: calling growStack on a fresh goroutine
// moves its stack (a stack variable's address changes: the runtime copied
// the stack to a larger one), and afterwards a call needing 40 KB of stack
// does not move it again — one copy, not the doubling 2 → 4 → … KB copies
// a goroutine otherwise makes. No garbage collection runs meanwhile (one
// could shrink the stack).
func TestGrowStackMovesTheStackOnce(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	got := make(chan [3]uintptr, 1)
	go func() {
		var x byte
		before := uintptr(unsafe.Pointer(&x))
		growStack(0)
		grown := uintptr(unsafe.Pointer(&x))
		use40K(1)
		got <- [3]uintptr{before, grown, uintptr(unsafe.Pointer(&x))}
	}()
	a := <-got
	if a[0] == a[1] {
		t.Fatal("growStack did not move the goroutine's stack: its 60 KB frame is gone (the compiler dropped it?)")
	}
	if a[1] != a[2] {
		t.Fatal("a 40 KB call after growStack moved the stack again: growStack did not grow it to 64 KB")
	}
}

//go:noinline
func use40K(n int) byte {
	var frame [40 << 10]byte
	fill40K(&frame, n)
	return frame[n]
}

//go:noinline
func fill40K(frame *[40 << 10]byte, n int) { frame[n] = byte(n) }
