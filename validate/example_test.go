package validate_test

import (
	"fmt"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/validate"
)

func ExampleCheck() {
	schema := &qeval.Schema{Tables: []qeval.TableSchema{{Name: "singer", Columns: []qeval.Column{{Name: "name"}, {Name: "age"}}}}}
	for _, q := range []string{
		"SELECT name FROM singer WHERE age > 30",
		"SELECT name FROM nonexistent",
		"DELETE FROM singer",
	} {
		v := validate.Check(q, validate.Options{Schema: schema})
		if v.Valid {
			fmt.Println("valid")
			continue
		}
		fmt.Printf("%s: %s\n", v.Category, v.Problems[0].Message)
	}
	// Output:
	// valid
	// schema: Table 'nonexistent' does not exist
	// safety: DELETE statements are not allowed; only SELECT is
}
