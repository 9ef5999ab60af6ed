#include <libraw/libraw.h>
// OpenMP's thread count, so a batch can make each decode single-threaded (libgomp comes with libraw_r).
extern void omp_set_num_threads(int);
