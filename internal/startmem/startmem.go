// Package startmem readies the memory a cockpit process starts in, before
// the package inits of the ≈270 packages the cockpit links run: it backs the
// first 2 MB of the Go heap with one transparent huge page, so the inits do
// not fault it in 4 KB page by 4 KB page, and it grows the main goroutine's
// stack once, while it is shallow, so the inits and the command do not copy
// it three times over (each copy reads every frame's stack map from
// .gopclntab: ≈12 faults in all).
//
// A headless command a lead calls (`lead-progress append`, `team await`)
// lives for tens of milliseconds, and on the virtual machines agents run in
// its start is its page faults: where the guest's page tables are shadowed
// (PVM, as on the machines this project is built on; gVisor's systrap) a
// minor fault costs 15–50 µs, against well under a microsecond on bare
// metal, and the Go heap of a start takes ≈250 of them (docs/PERFORMANCE.md,
// "A headless command's start"; docs/DECISIONS.md 84). One MADV_COLLAPSE of
// the 2 MB the allocator is filling turns those into one huge-page fault.
//
// It is done once, at init, and never again: of the heap only the rest of
// its first 4 MB chunk is marked for huge pages (MADV_HUGEPAGE, for the one
// start in four whose inits run on into it), so a long-lived engine's heap
// is otherwise managed by the runtime as before, and the runtime's scavenger
// may split the pages later. The cost is at most 4 MB of resident memory
// where the start touched ≈1 MB. It does nothing where the kernel refuses (no THP, a
// process with THP disabled by prctl, GODEBUG=disablethp=1, which marks the
// heap MADV_NOHUGEPAGE) and on other systems than Linux on amd64 and arm64.
//
// The package imports nothing, so its init runs among the first, right after
// the runtime's (the language's init order takes, at each step, the first
// package by import path whose imports are initialized); the madvise call
// is written in assembly for that reason (package syscall would make it
// wait for syscall's own dependencies). cmd/cockpit imports it for its
// side effect; TestHeapIsOneHugePage and cmd/cockpit's TestStartInitBudget
// hold both.
package startmem

import "unsafe"

const (
	madvHugePage = 14 // MADV_HUGEPAGE
	madvCollapse = 25 // MADV_COLLAPSE, Linux 6.1
	hugePage     = 2 << 20
	// heapChunk is the runtime's pallocChunkBytes: the heap grows, and is
	// mapped, in 4 MB chunks, and since Go 1.26 it starts at a random page
	// of its first chunk (GOEXPERIMENT randomizedheapbase64).
	heapChunk = 4 << 20
)

// anchor is the allocation whose address says which 2 MB the allocator is
// filling.
var anchor *[16]byte

// Errno is what the kernel answered the collapse: 0 when the heap's first
// 2 MB became one huge page, an errno (EINVAL where huge pages are not to be
// had) otherwise, and -1 on systems where it is not attempted.
var Errno int

func init() {
	collapseHeap()
	StackGrown = growStack(len(anchor)) == 1
}

func collapseHeap() {
	anchor = new([16]byte)
	at := uintptr(unsafe.Pointer(anchor))
	base := at &^ (hugePage - 1)
	// The heap's random start puts it anywhere in its chunk, so the ≈1 MB
	// the inits allocate runs on into the chunk's second 2 MB one start in
	// four: that half, mapped with the chunk, gets its huge page at its
	// first fault.
	if rest := (at &^ (heapChunk - 1)) + heapChunk; base+hugePage < rest {
		advise(base+hugePage, rest-base-hugePage, madvHugePage)
	}
	Errno = collapse(base, hugePage)
}

// StackGrown says the stack-growing call ran (its result is kept so the
// frame is not optimised away).
var StackGrown bool

// growStack has a 60 KB frame: calling it grows the calling goroutine's
// stack (8 KB at start) to 64 KB in one copy of a shallow stack. A
// goroutine's stack shrinks only at a garbage collection, which a headless
// command does not reach.
//
//go:noinline
func growStack(n int) byte {
	var frame [60 << 10]byte
	frame[n] = 1
	return frame[n]
}
