//go:build linux

package sqlite

/*
#include <malloc.h>

// qeval_keep_buffers raises the C allocator's mmap threshold to mmapAt and its trim
// threshold to trimAt (glibc's mallopt; nothing where the C library has neither).
static void qeval_keep_buffers(int mmapAt, int trimAt) {
#if defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
	mallopt(M_MMAP_THRESHOLD, mmapAt);
	mallopt(M_TRIM_THRESHOLD, trimAt);
#endif
}
*/
import "C"

import (
	"os"
	"strings"
	"sync"
)

var keepBuffersOnce sync.Once

// keepCopyBuffers makes the C allocator serve a reused copy's buffer (each reset
// allocates the whole database again, up to DefaultSandboxMemory) from memory it keeps,
// instead of a new mapping per reset: glibc maps each allocation past 128 KiB afresh, and
// faulting in those pages was 40% of a stateful case on Spider's world_1 (312 KB); with
// the thresholds at the pool's own bounds a stateful case costs 2× a read-only one,
// not 4×. Freed memory up to maxIdleBytes may then stay with the process. A user's own
// malloc settings (GLIBC_TUNABLES, MALLOC_*_THRESHOLD_) are left as they are.
func keepCopyBuffers() {
	keepBuffersOnce.Do(func() {
		if strings.Contains(os.Getenv("GLIBC_TUNABLES"), "threshold") ||
			os.Getenv("MALLOC_MMAP_THRESHOLD_") != "" || os.Getenv("MALLOC_TRIM_THRESHOLD_") != "" {
			return
		}
		C.qeval_keep_buffers(C.int(DefaultSandboxMemory), C.int(maxIdleBytes))
	})
}
