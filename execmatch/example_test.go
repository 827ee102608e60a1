package execmatch_test

import (
	"context"
	"fmt"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/execmatch"
	"github.com/qeval/qeval/registry"
)

// One generated query judged against its gold query on a SQLite database: the columns
// come in another order and the rows unsorted, which the Spider rules accept.
func ExampleMatch() {
	db := "../examples/spider/database/concert_singer/concert_singer.sqlite"
	gold := "SELECT name, country FROM singer WHERE age > 40"
	pred := "SELECT Country, Name FROM singer WHERE Age > 40 ORDER BY Name DESC"
	v := execmatch.Match(context.Background(), db, pred, gold, execmatch.Options{Mode: "spider-ts", Catalog: &registry.Catalog{}})
	fmt.Println(v.Match, v.Outcome, v.Mode, v.Pred.NumRows())

	v = execmatch.Match(context.Background(), db, "SELECT nam FROM singer", gold, execmatch.Options{Mode: "spider-ts", Catalog: &registry.Catalog{}})
	fmt.Println(v.Match, v.Outcome, v.Error)
	// Output:
	// true match spider-ts@1 3
	// false pred_error no such column: nam
}

// A batch of items judged with bounded concurrency; a failing gold query is reported
// as that item's gold_error and the others go on.
func ExampleEvaluator_Run() {
	ev, err := execmatch.New(execmatch.Options{Mode: "bag", Catalog: &registry.Catalog{}})
	if err != nil {
		panic(err)
	}
	defer ev.Close()
	db := "../examples/spider/database/pets_1"
	items := []qeval.Item{
		{Database: db, Gold: "SELECT count(*) FROM Pets", Pred: "SELECT COUNT(PetID) FROM pets"},
		{Database: db, Gold: "SELECT max(weight) FROM Pets", Pred: "SELECT min(weight) FROM Pets"},
		{Database: db, Gold: "SELECT avg(age) FROM Student", Pred: "SELECT sum(age) * 1.0 / count(*) FROM Student"},
		{Database: db, Gold: "SELECT x FROM nowhere", Pred: "SELECT 1"},
	}
	verdicts, sum := ev.Run(context.Background(), items, 2, nil)
	for _, v := range verdicts {
		fmt.Println(v.Outcome)
	}
	fmt.Printf("%d/%d correct, accuracy %.2f, gold errors %d\n", sum.Correct, sum.Total, sum.Accuracy, sum.Outcomes[qeval.OutcomeGoldError])
	// Output:
	// match
	// mismatch
	// match
	// gold_error
	// 2/4 correct, accuracy 0.50, gold errors 1
}
