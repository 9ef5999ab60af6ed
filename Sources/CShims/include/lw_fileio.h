#ifndef LW_FILEIO_H
#define LW_FILEIO_H

/// Asks the kernel to start writing a file's dirty pages to disk now, without waiting (sync_file_range
/// with SYNC_FILE_RANGE_WRITE, which glibc only declares under _GNU_SOURCE). Returns 0 or -1 with errno.
int lw_start_writeback(int fd);

#endif
