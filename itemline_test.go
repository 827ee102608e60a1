package qeval_test

import (
	"encoding/json"
	"testing"

	"github.com/qeval/qeval"
)

// A benchmark keeps its item's line as a value (ItemValue) and encodes it only where a
// case is written: the written case carries it as "item", ItemLine gives the same
// bytes, and ReadItem gives the value back with or without the encoding.
func TestCaseResult_ItemValue(t *testing.T) {
	type line struct {
		Index int     `json:"index"`
		Gold  string  `json:"gold"`
		MS    float64 `json:"ms"`
	}
	v := &line{Index: 3, Gold: "SELECT a < b", MS: 0.1 + 0.2}
	c := qeval.CaseResult{ID: "3", ItemValue: v}
	want, _ := json.Marshal(v)
	got, err := c.ItemLine()
	if err != nil || string(got) != string(want) {
		t.Fatalf("ItemLine = %s, %v; want %s", got, err, want)
	}
	raw, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back qeval.CaseResult
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if string(back.Item) != string(want) {
		t.Fatalf("the written case's item = %s, want %s", back.Item, want)
	}
	for name, cr := range map[string]*qeval.CaseResult{"value": &c, "decoded": &back} {
		var l line
		if err := qeval.ReadItem(cr, &l); err != nil || l != *v {
			t.Errorf("%s: ReadItem = %+v, %v; want %+v", name, l, err, *v)
		}
	}
	var l line
	if err := qeval.ReadItem(&qeval.CaseResult{Item: json.RawMessage(`{"index":`)}, &l); err == nil {
		t.Error("ReadItem of a torn line: no error")
	}
}
