#include <libraw/libraw.h>
// OpenMP's thread count, so a batch can make each decode single-threaded (libgomp comes with libraw_r).
extern void omp_set_num_threads(int);
// Swift does not import C arrays this long (LIBRAW_CBLACK_SIZE): per-channel black k and the black pattern.
static inline unsigned lw_libraw_cblack(const libraw_data_t *lr, int k) { return lr->color.cblack[k]; }
// Swift imports char[6][6] as nested tuples: site k of the visible image's X-Trans layout.
static inline int lw_libraw_xtrans(const libraw_data_t *lr, int k) { return lr->idata.xtrans[k / 6][k % 6]; }
