//go:build linux && (amd64 || arm64)

package startmem

// madvise is the raw madvise(2) system call; it returns 0 or -errno.
//
//go:noescape
func madvise(addr, n, advice uintptr) int

// collapse asks for the huge page, again when the kernel answers EAGAIN (a
// page it could not isolate that moment: about one start in forty here).
func collapse(addr, n uintptr) int {
	const eagain = 11
	errno := 0
	for range 3 {
		if errno = -madvise(addr, n, madvCollapse); errno != eagain {
			break
		}
	}
	return errno
}

func advise(addr, n, advice uintptr) { madvise(addr, n, advice) }
