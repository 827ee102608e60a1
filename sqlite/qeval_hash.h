// The hash rounds of qeval's two table digests (fingerprint.go's qeval_fingerprint and
// copyimage.go's stored digest), included by both cgo preambles.
#include <stdint.h>
#include <string.h>

// qeval_round folds one 64-bit word into the running hash h: a bijection of h for each
// word (multiply, rotate, multiply by odd constants, as xxHash's round), eight bytes at
// a time where a byte-wise hash took eight multiplications.
static inline uint64_t qeval_round(uint64_t h, uint64_t w) {
	h ^= w * 0xc2b2ae3d27d4eb4fULL;
	h = (h << 31) | (h >> 33);
	return h * 0x9e3779b185ebca87ULL;
}

// qeval_bytes folds n bytes into h, eight at a time (little-endian); the last word is
// zero-padded (the caller folds the length in first, so padding cannot make two values
// one).
static inline uint64_t qeval_bytes(uint64_t h, const unsigned char *p, uint64_t n) {
	uint64_t w;
	while (n >= 8) {
		memcpy(&w, p, 8);
		h = qeval_round(h, w);
		p += 8;
		n -= 8;
	}
	if (n > 0) {
		// in registers: bytes stored one by one and read back as a word stall the load
		w = 0;
		for (uint64_t i = 0; i < n; i++) {
			w |= (uint64_t)p[i] << (8 * i);
		}
		h = qeval_round(h, w);
	}
	return h;
}
