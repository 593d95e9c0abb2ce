#include "textflag.h"

// func madvise(addr, n, advice uintptr) int
TEXT ·madvise(SB), NOSPLIT, $0-32
	MOVQ	addr+0(FP), DI
	MOVQ	n+8(FP), SI
	MOVQ	advice+16(FP), DX
	MOVQ	$28, AX // SYS_madvise
	SYSCALL
	MOVQ	AX, ret+24(FP)
	RET
