package judge

import (
	"testing"
	"time"
)

// The backoff is jittered between half and all of the exponential delay, capped, and
// never shorter than what the provider asked for.
func TestRetryPolicy_Backoff(t *testing.T) {
	p := RetryPolicy{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}.withDefaults()
	tests := []struct {
		attempt    int
		retryAfter time.Duration
		lo, hi     time.Duration
	}{
		{1, 0, 50 * time.Millisecond, 100 * time.Millisecond},
		{2, 0, 100 * time.Millisecond, 200 * time.Millisecond},
		{3, 0, 200 * time.Millisecond, 400 * time.Millisecond},
		{10, 0, 500 * time.Millisecond, time.Second},
		{1, 3 * time.Second, 3 * time.Second, 3 * time.Second},
	}
	for _, tt := range tests {
		for range 50 {
			if d := p.backoff(tt.attempt, tt.retryAfter); d < tt.lo || d > tt.hi {
				t.Fatalf("backoff(%d, %v) = %v, want in [%v, %v]", tt.attempt, tt.retryAfter, d, tt.lo, tt.hi)
			}
		}
	}
	if d := (RetryPolicy{}).withDefaults(); d.MaxAttempts != DefaultMaxAttempts || d.BaseDelay != DefaultBaseDelay || d.MaxDelay != DefaultMaxDelay || d.MaxElapsed != DefaultMaxElapsed {
		t.Errorf("defaults = %+v", d)
	}
}
