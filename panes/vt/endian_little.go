//go:build 386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm

package vt

// littleEndian says the machine stores a word's low byte first (fast.go).
// A constant, not a probe at init: the compiler drops the loops the
// machine does not use, and no command pays for an init.
const littleEndian = true
