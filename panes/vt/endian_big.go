//go:build !(386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm)

package vt

// littleEndian is false on the other machines (mips, mips64, ppc64,
// s390x, sparc64): fast.go's field-by-field loops are used.
const littleEndian = false
