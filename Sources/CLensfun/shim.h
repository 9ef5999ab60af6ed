#include <lensfun.h>

/// LF_CR_1(INTENSITY): one float per pixel, the same gain for every channel (the macro is not visible to Swift).
static inline int lw_lf_role_intensity(void) { return LF_CR_1(INTENSITY); }
