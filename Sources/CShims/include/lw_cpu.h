#ifndef LW_CPU_H
#define LW_CPU_H

/// The CPU features LightWork's kernels have paths for, detected once for every kernel (demosaic, half-float
/// conversion, vector curves and LUTs, SHA-256). Every path gives the same bits as its baseline, so the answers change
/// speed only. FMA is not asked for: the kernels never fuse a multiply and an add (the baseline could not match).

/// 1 when the AVX2 paths may run (the CPU has AVX2 and the baseline is not forced).
int lw_cpu_avx2(void);
/// 1 when the F16C half-float conversions may run (the CPU has F16C and AVX, and the baseline is not forced).
int lw_cpu_f16c(void);
/// 1 when the SHA-256 block compression may use the SHA extensions (SHA-NI with SSE4.1 and SSSE3; baseline not forced).
int lw_cpu_sha(void);
/// Tests only: 1 makes every kernel take its baseline (portable x86-64) path, 0 goes back to what the CPU has.
void lw_cpu_force_baseline(int on);

#endif
