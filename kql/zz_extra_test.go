package kql_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/qeval/qeval/kql"
)

func TestZZExtra(t *testing.T) {
	path := os.Getenv("KQL_EXTRA")
	if path == "" {
		t.Skip()
	}
	f, _ := os.Open(path)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	n, bad := 0, 0
	out, _ := os.Create(path + ".fail")
	for sc.Scan() {
		var r struct{ Source, KQL string }
		json.Unmarshal(sc.Bytes(), &r)
		n++
		if _, err := kql.Parse(r.KQL); err != nil {
			bad++
			fmt.Fprintf(out, "##### %s\n%v\n", r.Source, err)
		}
	}
	fmt.Printf("parsed %d/%d\n", n-bad, n)
}
