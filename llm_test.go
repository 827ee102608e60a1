package qeval_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/qeval/qeval"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{"Retry-After-Ms": {"1500"}, "Retry-After": {"9"}}, 1500 * time.Millisecond},
		{http.Header{"Retry-After": {"2"}}, 2 * time.Second},
		{http.Header{"Retry-After": {now.Add(7 * time.Second).Format(http.TimeFormat)}}, 7 * time.Second},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{}, 0},
	} {
		if got := qeval.RetryAfter(c.h, now); got != c.want {
			t.Errorf("RetryAfter(%v) = %v, want %v", c.h, got, c.want)
		}
	}
}

func TestMask(t *testing.T) {
	if got := qeval.Mask("key sk-123 in sk-123", "sk-123"); got != "key xxxxx in xxxxx" {
		t.Errorf("Mask = %q", got)
	}
	if got := qeval.Mask("nothing", ""); got != "nothing" {
		t.Errorf("Mask with no secret = %q", got)
	}
	pe := &qeval.ProviderError{Provider: "openai", StatusCode: 429, Message: "slow down"}
	if got := pe.Detail(); got != "429 too many requests: slow down" {
		t.Errorf("Detail = %q", got)
	}
}
