// Package bird scores text-to-SQL predictions as the BIRD benchmark's official scripts
// (bird-bench/mini_dev, evaluation/evaluation_ex.py, evaluation_f1.py and
// evaluation_ves.py) do, item for item: execution accuracy (EX), soft-F1 and the
// reward-based valid efficiency score (R-VES).
//
// It reads BIRD's own files (ReadPredictions, ReadGold, ReadDifficulties) and runs the
// queries through any qeval.Executor, opened with the qeval.Opener the caller passes
// (SQLite files under a root folder, or one PostgreSQL or MySQL database, as BIRD
// does).
//
// Beside the official numbers it gives, each under its own name:
//   - pairing by key: the official scripts pair the i-th prediction in the file with
//     the i-th gold query, whatever its key; Pairing says which keys are missing, extra
//     or out of place, and Item.EXByKey / SoftF1ByKey score the prediction whose key is
//     the item's index when that differs;
//   - R-VES by VM steps: the official R-VES times repeated runs on the wall clock and
//     changes from run to run; RVESSteps uses the number of virtual-machine steps SQLite
//     takes (an executor implementing StepCounter), identical on every run and machine.
package bird
