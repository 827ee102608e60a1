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
