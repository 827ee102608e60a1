package compare_test

import (
	"fmt"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
)

func ExampleLookup() {
	m, err := compare.Lookup("spider-ts")
	if err != nil {
		panic(err)
	}
	gold := &qeval.ResultSet{Rows: [][]qeval.Value{{qeval.Int(1), qeval.Text("Paris")}}}
	pred := &qeval.ResultSet{Rows: [][]qeval.Value{{qeval.Text("Paris"), qeval.Float(1)}}}
	fmt.Println(m.ID(), m.Equal(gold, pred, false))

	_, err = compare.Lookup("bagg")
	fmt.Println(err)
	// Output:
	// spider-ts@1 true
	// unknown comparison mode "bagg" (known: bag, bird-ex, ordered, spider-ts, spider2, spider2-strict, subset)
}
