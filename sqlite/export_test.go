package sqlite

// IdleCopies is how many reused copies the pool keeps, and their bytes.
func IdleCopies() (n int, bytes int64) {
	copies.mu.Lock()
	defer copies.mu.Unlock()
	for _, list := range copies.idle {
		n += len(list)
	}
	return n, copies.bytes
}

// CloseIdleCopies empties the pool.
func CloseIdleCopies() { copies.closeIdle() }

// MaxIdleCopies is the pool's bound per source.
const MaxIdleCopies = maxIdleCopies

// Images is how many images of source versions are kept, and their bytes.
func Images() (n int, bytes int64) {
	shapes.mu.Lock()
	defer shapes.mu.Unlock()
	for _, sh := range shapes.m {
		if sh.image != nil {
			n++
		}
	}
	return n, shapes.imageBytes
}
