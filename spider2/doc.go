// Package spider2 scores Spider 2.0 (Spider2-lite) predictions as its official
// evaluator does (xlang-ai/Spider2, spider2-lite/evaluation_suite/evaluate.py), item
// for item: each prediction is a result (a CSV file, or a query whose result is saved
// as CSV and read back) compared with one or more gold results (<id>.csv, or
// <id>_a.csv, <id>_b.csv, …: any one may match) on the gold columns its
// spider2lite_eval.jsonl entry names (condition_cols), in order or not (ignore_order),
// with the comparison of compare.Spider2Match — or, in the strict variant, of
// compare.Spider2StrictMatch, which fixes that comparison's known faults.
//
// CSV files are read with package resultcsv, which types columns as pandas does.
package spider2
