package qeval_test

import (
	"testing"

	"github.com/qeval/qeval"
)

func TestDidYouMean(t *testing.T) {
	known := []string{"spider", "spider2", "bird", "run", "serve", "critical", "spider-ts", "bag"}
	for in, want := range map[string]string{"spidr": "spider", "brid": "bird", "rnu": "run", "critcal": "critical",
		"spider-tss": "spider-ts", "serv": "serve", "frobnicate": "", "x": "", "bagg": "bag"} {
		if got := qeval.DidYouMean(in, known); got != want {
			t.Errorf("DidYouMean(%q) = %q, want %q", in, got, want)
		}
	}
}
