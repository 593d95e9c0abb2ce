//go:build !linux || !(amd64 || arm64)

package startmem

func collapse(addr, n uintptr) int { return -1 }

func advise(addr, n, advice uintptr) {}
