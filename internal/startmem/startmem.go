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
// metal, and the Go heap of a start takes ≈170 of them after the runtime's
// own (docs/PERFORMANCE.md, "A headless command's start"; docs/DECISIONS.md
// 84). One MADV_COLLAPSE of the 2 MB the heap starts in turns those into
// one huge-page fault.
//
// It is done once, at init, and never again: of the heap only the rest of
// its first 4 MB chunk is marked for huge pages (MADV_HUGEPAGE), so a
// long-lived engine's heap is otherwise managed by the runtime as before,
// and the runtime's scavenger may split the pages later. The cost is at
// most 4 MB of resident memory where the start touched ≈1 MB. It does
// nothing where the kernel refuses (no THP, a process with THP disabled by
// prctl, GODEBUG=disablethp=1, which marks the heap MADV_NOHUGEPAGE) and on
// other systems than Linux on amd64 and arm64. Left: when the heap starts
// in the last part of its chunk (since Go 1.26 it starts at a random page
// of it), the start runs on into the next chunk, which the runtime maps
// later, in 4 KB faults (one start in four or five here: 30–130 more).
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
	einval       = 22
	madvHugePage = 14 // MADV_HUGEPAGE
	madvCollapse = 25 // MADV_COLLAPSE, Linux 6.1
	hugePage     = 2 << 20
	// heapChunk is the runtime's pallocChunkBytes: the heap grows, and is
	// mapped, in 4 MB chunks, and since Go 1.26 it starts at a random page
	// of its first chunk (GOEXPERIMENT randomizedheapbase64).
	heapChunk = 4 << 20
)

// anchor is a tiny allocation: it lands in the tiny block the runtime's own
// start opened, near the heap's first page, so its address says which 2 MB
// the heap starts in.
var anchor *[16]byte

// Errno is what the kernel answered the collapse of the anchor's 2 MB: 0
// when it became one huge page, an errno (EINVAL where huge pages are not to be
// had) otherwise, and -1 on systems where it is not attempted.
var Errno int

func init() {
	collapseHeap()
	StackGrown = growStack(len(anchor)) == 1
}

func collapseHeap() {
	anchor = new([16]byte)
	at := uintptr(unsafe.Pointer(anchor))
	// The heap's random start puts it anywhere in its 4 MB chunk, so the
	// ≈1 MB the runtime and the inits allocate may lie in either 2 MB of
	// it or in both. The anchor's 2 MB is collapsed; where the kernel
	// refuses (EINVAL: no huge pages, or GODEBUG=disablethp=1 marked the
	// heap MADV_NOHUGEPAGE) nothing more is asked. The chunk's next 2 MB,
	// if the anchor's is its first, is marked for huge pages, so its first
	// fault takes one, and collapsed too in case the runtime's own start
	// already ran into it (an empty 2 MB refuses the collapse and waits
	// for its first fault).
	first := at &^ (hugePage - 1)
	if Errno = collapse(first, hugePage); Errno == einval {
		return
	}
	if next := first + hugePage; next < (at&^(heapChunk-1))+heapChunk {
		advise(next, hugePage, madvHugePage)
		collapse(next, hugePage)
	}
}

// StackGrown says the stack-growing call ran (its result is kept so the
// frame is not optimised away).
var StackGrown bool

// growStack has a 60 KB frame: calling it grows the calling goroutine's
// stack (8 KB at start) to 64 KB in one copy of a shallow stack. A
// goroutine's stack shrinks only at a garbage collection, which a headless
// command does not reach. The frame is written by fill, which is not
// inlined: with the write and the read in one function the compiler folds
// them to a constant and drops the frame (it did: the inits then copied
// the stack three times, 2 → 16 KB, TestGrowStackMovesTheStackOnce).
//
//go:noinline
func growStack(n int) byte {
	var frame [60 << 10]byte
	fill(&frame, n)
	return frame[n]
}

//go:noinline
func fill(frame *[60 << 10]byte, n int) { frame[n] = 1 }
