package sqlparse_test

import (
	"fmt"

	"github.com/qeval/qeval/sqlparse"
)

func ExampleParse() {
	s, err := sqlparse.Parse(sqlparse.SQLite, `SELECT T2.name, count(*) FROM concert AS T1 JOIN stadium AS T2
		ON T1.stadium_id = T2.stadium_id WHERE T1.year >= 2014 GROUP BY T2.name`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Kind, s.Tables, s.Aliases["T2"])
	fmt.Println(s.Filters[1].Column, s.Filters[1].Operator, s.Filters[1].Value)
	fmt.Println(s.Aggregates[0].Func, s.Aggregates[0].Arg, s.GroupBy)
	// Output:
	// select [concert stadium] stadium
	// concert.year >= 2014
	// count * [stadium.name]
}

func ExampleHardness() {
	h, _ := sqlparse.Hardness("SELECT name FROM singer WHERE singer_id NOT IN (SELECT singer_id FROM singer_in_concert)")
	fmt.Println(h)
	// Output: hard
}
